import { afterEach, describe, expect, test } from 'vitest';
import {
  type Emulator,
  type EmulatorUser,
  startEmulator,
  USER_ONE,
  USER_TWO,
  V3_LIMITS,
  WindowLimiter,
} from '../../tools/emulator/index.ts';
import { call, until } from './helpers.ts';
import { BASE_VOICE, messagesOf, stream, submitV3 } from './v3-helpers.ts';

describe('WindowLimiter (pure, with a fake clock)', () => {
  test.each<[string, number]>([
    ['free', V3_LIMITS.free.perMinute],
    ['paid', V3_LIMITS.paid.perMinute],
  ])(
    'the %s allowance of %i passes in full, then one more is refused until the window ends',
    (_, limit) => {
      let now = 1_000_000;
      const limiter = new WindowLimiter(1, () => now);
      const remaining: number[] = [];
      for (let i = 0; i < limit; i++) {
        const taken = limiter.take('k', limit);
        expect(taken.ok).toBe(true);
        remaining.push(taken.remaining);
        now += 100;
      }
      expect(remaining).toEqual(Array.from({ length: limit }, (_, i) => limit - 1 - i));
      const refused = limiter.take('k', limit);
      expect(refused).toMatchObject({ ok: false, remaining: 0, resetAt: 1_060_000 });
      expect(refused.ok ? 0 : refused.retryAfterMs).toBe(1_060_000 - now);
      expect(limiter.take('another key', limit).ok).toBe(true);
      now = 1_060_000;
      expect(limiter.take('k', limit)).toMatchObject({
        ok: true,
        remaining: limit - 1,
        resetAt: 1_120_000,
      });
    },
  );

  test('refused requests do not count; timeScale shortens the window', () => {
    let now = 0;
    const limiter = new WindowLimiter(0.001, () => now);
    for (let i = 0; i < 3; i++) limiter.take('k', 2);
    now = 59;
    expect(limiter.take('k', 2).ok).toBe(false);
    now = 60;
    expect(limiter.take('k', 2)).toMatchObject({ ok: true, remaining: 1 });
  });
});

describe('the request window over HTTP', () => {
  let emu: Emulator | undefined;
  afterEach(async () => {
    await emu?.close();
    emu = undefined;
  });

  test.each<[string, number, EmulatorUser]>([
    ['free', 120, USER_TWO],
    ['paid', 240, USER_ONE],
  ])(
    '%s plan: %i requests over all v3 endpoints pass (0 refused), then the documented 429',
    async (_, cap, user) => {
      let now = Date.parse('2026-04-28T10:00:00.000Z');
      emu = await startEmulator({
        synth: 'tone',
        generationMs: () => 5,
        queueMs: 5,
        now: () => now,
      });
      const emulator = emu;
      const paths = ['/v3/voices?limit=1', '/v3/history?limit=1', '/v3/tts?generation_id=gen_x'];
      const statuses = new Map<number, number>();
      let lastRemaining = '';
      for (let i = 0; i < cap; i++) {
        const answer = await call(emulator, paths[i % 3] ?? '/v3/voices', { key: user.apiKey });
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        expect(answer.headers.get('x-ratelimit-limit')).toBe(String(cap));
        expect(answer.headers.get('x-ratelimit-remaining')).toBe(String(cap - 1 - i));
        lastRemaining = answer.headers.get('x-ratelimit-remaining') ?? '';
      }
      expect(statuses.get(429)).toBeUndefined();
      expect(lastRemaining).toBe('0');

      const refused = await call(emulator, '/v3/voices', { key: user.apiKey });
      expect(refused.status).toBe(429);
      expect(refused.json).toEqual({
        detail: 'Rate limit exceeded. Please retry after 60 seconds.',
      });
      expect(refused.headers.get('retry-after')).toBe('60');
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(refused.headers.get('x-ratelimit-reset')).toBe(
        String(Math.ceil((now + 60_000) / 1000)),
      );
      const other = user === USER_ONE ? USER_TWO : USER_ONE;
      expect((await call(emulator, '/v3/voices', { key: other.apiKey })).status).toBe(200);
      // v2 keeps its own limits: the v3 window does not touch them.
      expect((await call(emulator, '/v2/voices?model=base', { key: user.apiKey })).status).toBe(
        200,
      );

      now += 30_000;
      const later = await call(emulator, '/v3/voices', { key: user.apiKey });
      expect(later.json).toEqual({ detail: 'Rate limit exceeded. Please retry after 30 seconds.' });
      now += 30_000;
      expect((await call(emulator, '/v3/voices', { key: user.apiKey })).status).toBe(200);
      expect(emulator.counts()['GET /v3/voices']?.byStatus[429]).toBe(2);
    },
  );

  test('a wrong key is refused before it can use any window', async () => {
    emu = await startEmulator({
      synth: 'tone',
      v3Limits: { paid: { perMinute: 2, concurrent: 20 } },
    });
    for (let i = 0; i < 5; i++)
      expect((await call(emu, '/v3/voices', { key: 'adx_wrong' })).status).toBe(401);
    expect((await call(emu, '/v3/voices', { key: USER_ONE.apiKey })).status).toBe(200);
    expect((await call(emu, '/v3/voices', { key: USER_ONE.apiKey })).status).toBe(200);
    expect((await call(emu, '/v3/voices', { key: USER_ONE.apiKey })).status).toBe(429);
  });

  test('the stream takes one request from the window when it connects', async () => {
    emu = await startEmulator({
      synth: 'tone',
      v3Limits: { free: { perMinute: 1, concurrent: 5 } },
    });
    expect((await call(emu, '/v3/voices', { key: USER_TWO.apiKey })).status).toBe(200);
    const run = await stream(emu, USER_TWO.apiKey, { text: 'Refused.', voice_id: BASE_VOICE });
    expect(messagesOf(run)).toEqual([
      {
        type: 'error',
        message: expect.stringMatching(/^Rate limit exceeded\. Please retry after \d+ seconds\.$/),
      },
    ]);
    expect(run.closeCode).toBe(1008);
  });
});

describe('the concurrent-job cap', () => {
  let emu: Emulator | undefined;
  afterEach(async () => {
    await emu?.close();
    emu = undefined;
  });

  test('free plan: 5 jobs in flight pass, the 6th gets 429 (and a stream an error), a finished job frees a slot', async () => {
    // Long enough that the 6th request surely comes while all five still run.
    emu = await startEmulator({ synth: 'tone', queueMs: 10, generationMs: () => 3_000 });
    const emulator = emu;
    const cap = emulator.v3.limitsOf('free').concurrent;
    expect(cap).toBe(5);
    const ids: string[] = [];
    for (let i = 0; i < cap; i++) ids.push(await submitV3(emulator, USER_TWO.apiKey));
    const refused = await call(emulator, '/v3/tts', {
      key: USER_TWO.apiKey,
      body: { text: 'One too many for the plan.', voice_id: BASE_VOICE },
    });
    expect(refused.status).toBe(429);
    expect(refused.json).toEqual({
      detail: expect.stringContaining('Concurrent generation limit reached (5'),
    });
    expect(refused.headers.get('x-ratelimit-limit')).toBe('120');
    const streamed = await stream(emulator, USER_TWO.apiKey, {
      text: 'Also one too many.',
      voice_id: BASE_VOICE,
    });
    expect(messagesOf(streamed)).toEqual([
      { type: 'error', message: expect.stringContaining('Concurrent generation limit') },
    ]);
    expect(streamed.closeCode).toBe(1008);
    // The paid user's jobs are counted apart.
    await submitV3(emulator, USER_ONE.apiKey);

    await until(() => ids.some((id) => emulator.v3.generation(id)?.status === 'COMPLETED'));
    await submitV3(emulator, USER_TWO.apiKey);
    expect(emulator.counts()['POST /v3/tts']?.byStatus).toEqual({ 200: 7, 429: 1 });
  });

  test('a running stream counts as a job in flight', async () => {
    emu = await startEmulator({
      synth: 'tone',
      streamSpeed: 2,
      v3Limits: { paid: { perMinute: 240, concurrent: 1 } },
    });
    const emulator = emu;
    let submittedDuring: Promise<{ status: number }> | undefined;
    const run = await stream(
      emulator,
      USER_ONE.apiKey,
      {
        text: 'A stream that takes a few seconds to send all of its audio to the client.',
        voice_id: BASE_VOICE,
      },
      {
        onFrame: (frame) => {
          if (frame.kind !== 'audio' || submittedDuring) return;
          submittedDuring = call(emulator, '/v3/tts', {
            key: USER_ONE.apiKey,
            body: { text: 'Submitted during the stream.', voice_id: BASE_VOICE },
          });
        },
      },
    );
    expect(messagesOf(run).at(-1)).toMatchObject({ type: 'completed' });
    expect((await submittedDuring)?.status).toBe(429);
    expect(await submitV3(emulator, USER_ONE.apiKey)).toMatch(/^gen_/);
  });
});
