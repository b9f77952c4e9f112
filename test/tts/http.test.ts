import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DEFAULT_RETRY_BASE_MS, retryDelayMs } from '../../src/tts/http.ts';
import {
  type BudgetStore,
  type Clock,
  DEFAULT_LIMITS,
  type LimitUsage,
  MemoryBudgetStore,
  productionClientOptions,
  systemClock,
  TtsClients,
} from '../../src/tts/index.ts';
import type { Operation } from '../../src/tts/types.ts';
import { type Emulator, startEmulator, USER_ONE } from '../../tools/emulator/index.ts';
import { clientsFor, failure, SCALED_LIMITS, sentence, TIME_SCALE } from './emulated.ts';

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator({ synth: 'tone', timeScale: TIME_SCALE, generationMs: () => 30 });
});
afterAll(() => emulator.close());

/** Budgets that work, except that moving a request to its answer time always fails (a journal save error). */
class RestampFails implements BudgetStore {
  readonly #inner = new MemoryBudgetStore(SCALED_LIMITS);
  take(keyId: string, op: Operation, now: number) {
    return this.#inner.take(keyId, op, now);
  }
  async restamp(): Promise<void> {
    throw new Error('journal save failed');
  }
  usage(keyId: string, op: Operation, now: number): Promise<LimitUsage[]> {
    return this.#inner.usage(keyId, op, now);
  }
}

test('a restamp failure does not replace the answer of a POST that succeeded; it is reported', async () => {
  const { clients, background } = clientsFor(emulator, { budgets: new RestampFails() });
  const client = clients.forKey(USER_ONE.apiKey);
  const id = await client.submit({ text: sentence(), voiceId: 'am_2riuownnf', model: 'base' });
  expect(emulator.generation(id)).toBeDefined();
  expect(background).toEqual([expect.objectContaining({ message: 'journal save failed' })]);
  // Failures of the call itself still win over the restamp failure.
  await expect(
    clients.forKey('adx_not_a_real_key_9999').submit({
      text: sentence(),
      voiceId: 'am_2riuownnf',
      model: 'base',
    }),
  ).rejects.toMatchObject({ kind: 'invalid_key' });
  expect(background).toHaveLength(2);
});

describe('JSON answers have a size cap', () => {
  const HUGE = 2 * 1024 * 1024;
  const voices = (count: number) =>
    JSON.stringify({
      voices: Array.from({ length: count }, (_, i) => ({
        voice_id: `v${i}`,
        name: 'x'.repeat(100),
      })),
    });
  let server: Server;
  let baseUrl = '';
  beforeAll(async () => {
    server = createServer((request, response) => {
      const huge = voices(Math.ceil(HUGE / 120));
      if (request.url?.startsWith('/declared/voices')) {
        response.writeHead(200, { 'content-type': 'application/json' }).end(huge);
      } else if (request.url?.startsWith('/chunked/voices')) {
        response.writeHead(200, { 'content-type': 'application/json' });
        // No content-length: the cap must hold while reading.
        for (let at = 0; at < huge.length; at += 64 * 1024)
          response.write(huge.slice(at, at + 64 * 1024));
        response.end();
      } else if (request.url?.startsWith('/error/voices')) {
        response.writeHead(400, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ detail: 'y'.repeat(HUGE) }));
      } else {
        response.writeHead(200, { 'content-type': 'application/json' }).end(voices(3));
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const clientAt = (path: string, maxResponseBytes?: number) =>
    new TtsClients({
      baseUrl: `${baseUrl}${path}`,
      media: { origins: [baseUrl], maxBytes: 1024, timeoutMs: 1000 },
      budgets: new MemoryBudgetStore(DEFAULT_LIMITS),
      clock: systemClock,
      requestTimeoutMs: 5000,
      ...(maxResponseBytes === undefined ? {} : { maxResponseBytes }),
      maxRetries: 0,
      maxBudgetWaitMs: 1000,
      pollDeadlineMs: 1000,
      pollIntervalMs: { min: 10, max: 20 },
      voicesTtlMs: 1000,
      onBackgroundError: () => undefined,
    }).forKey(USER_ONE.apiKey);

  test.each(['/declared', '/chunked'])(
    'a 2 MiB answer (%s) fails as malformed_response, by default cap of 1 MiB',
    async (path) => {
      const error = await failure(clientAt(path).verify('base'), 'malformed_response');
      expect(error.message).toBe(`GET ${path}/voices answered more than 1048576 bytes`);
    },
  );

  test('a huge error body keeps its status meaning, without its text', async () => {
    const error = await failure(clientAt('/error').verify('base'), 'bad_request');
    expect(error.message).toBe('HTTP 400');
  });

  test('a normal answer, and a raised cap, still read', async () => {
    expect(await clientAt('/small').verify('base')).toHaveLength(3);
    expect((await clientAt('/declared', 4 * HUGE).verify('base')).length).toBeGreaterThan(1000);
  });
});

describe('retry waits without Retry-After', () => {
  /** A clock whose sleeps return at once and are recorded; its time moves by what was slept. */
  function recordingClock(): { clock: Clock; slept: number[] } {
    const slept: number[] = [];
    let now = Date.parse('2026-01-01T00:00:00Z');
    return {
      slept,
      clock: {
        now: () => now,
        sleep: async (ms) => {
          slept.push(ms);
          now += ms;
        },
      },
    };
  }
  /** An API that answers every request 429 with no Retry-After. */
  const busy: typeof fetch = async () =>
    new Response(JSON.stringify({ detail: 'Too Many Requests' }), {
      status: 429,
      headers: { 'content-type': 'application/json' },
    });
  /** The waits a `verify` against `busy` sat out, on the production options (`retryBaseMs` added). */
  async function waitsOf(retryBaseMs?: number): Promise<number[]> {
    const { clock, slept } = recordingClock();
    const client = new TtsClients({
      ...productionClientOptions({
        baseUrl: 'http://127.0.0.1:9/v2',
        mediaOrigins: ['http://127.0.0.1:9'],
        pollDeadlineMs: 60_000,
        budgets: new MemoryBudgetStore(DEFAULT_LIMITS),
        clock,
        onBackgroundError: () => undefined,
        ...(retryBaseMs === undefined ? {} : { retryBaseMs }),
      }),
      fetch: busy,
    }).forKey(USER_ONE.apiKey);
    await failure(client.verify('base'), 'rate_limited');
    return slept;
  }

  test('the real bot waits 1 s, 2 s, 4 s, 8 s between its 5 attempts (the default base is 1 s)', async () => {
    expect(await waitsOf()).toEqual([1000, 2000, 4000, 8000]);
  });

  test('a shorter base keeps the doubling: 50 ms gives 50, 100, 200, 400 ms', async () => {
    expect(await waitsOf(50)).toEqual([50, 100, 200, 400]);
  });

  test('retryDelayMs doubles from its base for every attempt', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 }), fc.integer({ min: 1, max: 5000 }), (n, base) => {
        expect(retryDelayMs(n)).toBe(DEFAULT_RETRY_BASE_MS * 2 ** n);
        expect(retryDelayMs(n, base)).toBe(base * 2 ** n);
        expect(retryDelayMs(n + 1, base)).toBe(2 * retryDelayMs(n, base));
      }),
    );
    expect(DEFAULT_RETRY_BASE_MS).toBe(1000);
  });
});
