import { afterEach, describe, expect, test } from 'vitest';
import {
  type Emulator,
  LIMITS,
  type LimitGroup,
  RateLimiter,
  startEmulator,
  USER_ONE,
  USER_TWO,
} from '../../tools/emulator/index.ts';
import { call, text } from './helpers.ts';

describe('RateLimiter (pure, with a fake clock)', () => {
  test.each<[LimitGroup, number, string]>([
    ['tts', 20, '20 per 1 minute'],
    ['status', 60, '60 per 1 minute'],
    ['voices', 10, '10 per 1 minute'],
    ['health', 100, '100 per 1 minute'],
  ])('%s allows %i per minute, then refuses with "%s"', (group, count, label) => {
    let now = 1_000_000;
    const limiter = new RateLimiter(1, () => now);
    for (let i = 0; i < count; i++) expect(limiter.hit('k', group).ok).toBe(true);
    const refused = limiter.hit('k', group);
    expect(refused).toMatchObject({ ok: false, limit: { label }, retryAfterMs: 60_000 });
    expect(limiter.hit('other key', group).ok).toBe(true);
    now += 59_999;
    expect(limiter.hit('k', group).ok).toBe(false);
    now += 1;
    expect(limiter.hit('k', group).ok).toBe(true);
  });

  test('the window slides: slots free one by one as old hits age out', () => {
    let now = 0;
    const limiter = new RateLimiter(1, () => now);
    for (let i = 0; i < 10; i++) {
      expect(limiter.hit('k', 'voices').ok).toBe(true);
      now += 1000;
    }
    now = 60_000; // the hit at t=0 has left the window, the one at t=1000 has not
    expect(limiter.hit('k', 'voices').ok).toBe(true);
    expect(limiter.hit('k', 'voices').ok).toBe(false);
    now = 61_000;
    expect(limiter.hit('k', 'voices').ok).toBe(true);
  });

  test('POST /tts also has a daily limit of 500; refused hits do not count', () => {
    let now = 0;
    const limiter = new RateLimiter(1, () => now);
    let accepted = 0;
    for (let minute = 0; minute < 30; minute++) {
      for (let i = 0; i < 25; i++) if (limiter.hit('k', 'tts').ok) accepted++;
      now += 60_000;
    }
    expect(accepted).toBe(500);
    expect(limiter.hit('k', 'tts')).toMatchObject({ ok: false, limit: { label: '500 per 1 day' } });
    now = 24 * 60 * 60_000;
    expect(limiter.hit('k', 'tts').ok).toBe(true);
  });

  test('timeScale shrinks every window', () => {
    let now = 0;
    const limiter = new RateLimiter(0.001, () => now);
    const minute = LIMITS.voices[0];
    expect(minute && limiter.windowOf(minute)).toBe(60);
    for (let i = 0; i < 10; i++) limiter.hit('k', 'voices');
    expect(limiter.hit('k', 'voices').ok).toBe(false);
    now = 60;
    expect(limiter.hit('k', 'voices').ok).toBe(true);
  });
});

describe('429 over HTTP', () => {
  let emu: Emulator | undefined;
  afterEach(async () => {
    await emu?.close();
    emu = undefined;
  });

  test('the 21st submit in a minute gets the vendor 429 body; other keys are unaffected', async () => {
    let now = Date.parse('2025-09-05T03:30:00Z');
    emu = await startEmulator({ synth: 'tone', generationMs: () => 5, now: () => now });
    const body = { text: text(), voice: 'am_2riuownnf' };
    for (let i = 0; i < 20; i++) {
      expect((await call(emu, '/v2/tts', { key: USER_ONE.apiKey, body })).status).toBe(201);
    }
    const refused = await call(emu, '/v2/tts', { key: USER_ONE.apiKey, body });
    expect(refused.status).toBe(429);
    expect(refused.json).toEqual({ detail: 'Too Many Requests', error: '20 per 1 minute' });
    expect(refused.headers.get('retry-after')).toBeNull();
    expect((await call(emu, '/v2/tts', { key: USER_TWO.apiKey, body })).status).toBe(201);
    now += 60_000;
    expect((await call(emu, '/v2/tts', { key: USER_ONE.apiKey, body })).status).toBe(201);
    expect(emu.counts()['POST /v2/tts']).toEqual({ total: 23, byStatus: { 201: 22, 429: 1 } });
  });

  test('with timeScale, windows are short in real time; Retry-After is optional', async () => {
    emu = await startEmulator({ synth: 'tone', timeScale: 0.05, retryAfter: true }); // 1 minute = 3 s
    const voices = () => call(emu as Emulator, '/v2/voices?model=base', { key: USER_ONE.apiKey });
    for (let i = 0; i < 10; i++) expect((await voices()).status).toBe(200);
    const refused = await voices();
    expect(refused.json).toEqual({ detail: 'Too Many Requests', error: '10 per 1 minute' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    await new Promise((resolve) => setTimeout(resolve, 3_100));
    expect((await voices()).status).toBe(200);
  });

  test('health checks share a limit of 100 per minute', async () => {
    const now = 0;
    emu = await startEmulator({ synth: 'tone', now: () => now });
    const paths = ['/', '/v2/', '/health'];
    for (let i = 0; i < 100; i++) {
      const path = paths[i % 3] ?? '/';
      expect((await call(emu, path, { key: USER_ONE.apiKey })).status).toBe(200);
    }
    expect((await call(emu, '/health', { key: USER_ONE.apiKey })).json).toEqual({
      detail: 'Too Many Requests',
      error: '100 per 1 minute',
    });
  });
});
