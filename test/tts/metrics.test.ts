import { expect, test } from 'vitest';
import { countingFetch, endpointOf, type TtsEndpoint } from '../../src/tts/index.ts';

const BASE = 'https://api.example.test/v2';

test.each([
  [`${BASE}/tts`, 'tts'],
  [`${BASE}/status?generation_id=abc`, 'status'],
  [`${BASE}/voices?model=base`, 'voices'],
  [`${BASE}/`, 'health'],
  [BASE, 'health'],
  [`${BASE}/other`, undefined],
  ['https://api.example.test/v1/tts', undefined],
])('%s is the %s endpoint', (url, expected) => {
  expect(endpointOf(url, BASE)).toBe(expected);
});

const V3 = 'https://api.example.test/v3';

test.each([
  [`${V3}/tts`, 'tts'],
  [`${V3}/tts?generation_id=gen_1`, 'status'],
  [`${V3}/voices?model=base&limit=500&offset=0`, 'voices'],
])('v3: %s is the %s endpoint', (url, expected) => {
  expect(endpointOf(url, V3)).toBe(expected);
});

test('countingFetch counts each answer by status, a request without answer as 0, and passes both on', async () => {
  const seen: [TtsEndpoint, number][] = [];
  const metrics = {
    apiRequest: (endpoint: TtsEndpoint, status: number) => void seen.push([endpoint, status]),
    noticeLag: () => undefined,
    cacheHit: () => undefined,
  };
  const answers = [new Response('{}', { status: 201 }), new Response('', { status: 429 })];
  const fetcher = countingFetch(
    async (input) => {
      if (String(input).includes('down')) throw new TypeError('fetch failed');
      const answer = answers.shift();
      if (answer === undefined) throw new Error('no more answers');
      return answer;
    },
    (url) => endpointOf(url, BASE),
    metrics,
  );
  expect((await fetcher(`${BASE}/tts`, { method: 'POST' })).status).toBe(201);
  expect((await fetcher(new URL(`${BASE}/status?generation_id=x`))).status).toBe(429);
  await expect(fetcher(`${BASE}/voices?down=1`)).rejects.toThrow('fetch failed');
  await expect(fetcher('https://elsewhere.test/down')).rejects.toThrow('fetch failed');
  expect(seen).toEqual([
    ['tts', 201],
    ['status', 429],
    ['voices', 0],
  ]);
});
