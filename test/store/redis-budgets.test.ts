import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  openRedis,
  RedisBudgetStore,
  type RedisConnection,
  StoreUnavailableError,
} from '../../src/store/index.ts';
import { RateGate } from '../../src/tts/gate.ts';
import {
  FallbackBudgetStore,
  type Limit,
  MemoryBudgetStore,
  parseLimits,
  shareOfLimits,
  TtsError,
  windowWithMargin,
} from '../../src/tts/index.ts';
import { OPERATIONS } from '../../src/tts/types.ts';
import { FakeClock, settle } from '../support/fake-clock.ts';
import { startRedis, type TestRedis } from '../support/redis.ts';

let redis: TestRedis;
let one: RedisConnection;
let two: RedisConnection;
let run = 0;
/** A fresh key prefix per case, so cases never see each other's logs. */
const prefix = () => `test:${++run}`;

beforeAll(async () => {
  redis = await startRedis();
  const fail = (error: unknown) => {
    throw error;
  };
  [one, two] = await Promise.all([openRedis(redis.url, fail), openRedis(redis.url, fail)]);
});
afterAll(async () => {
  await Promise.allSettled([one?.close(), two?.close()]);
  await redis?.stop();
});

const limits = parseLimits('generate=3/1s+5/10s,status=2/500ms,voices=1/1s,health=4/1s');

describe('RedisBudgetStore', () => {
  test.each([
    { label: 'first request', taken: [], at: 0, expected: { ok: true } },
    { label: 'below both limits', taken: [0, 10], at: 20, expected: { ok: true } },
    {
      label: 'per-second limit binds',
      taken: [0, 10, 20],
      at: 30,
      expected: { ok: false, waitMs: windowWithMargin({ count: 3, windowMs: 1000 }) - 30 },
    },
    {
      label: 'the 10 s limit binds after the first second',
      taken: [0, 10, 20, 1100, 1110],
      at: 1200,
      expected: { ok: false, waitMs: windowWithMargin({ count: 5, windowMs: 10_000 }) - 1200 },
    },
    { label: 'a window that has passed', taken: [0, 10, 20], at: 1050, expected: { ok: true } },
  ])('$label', async ({ taken, at, expected }) => {
    const store = new RedisBudgetStore(one, limits, prefix());
    for (const time of taken) expect((await store.take('k', 'generate', time)).ok).toBe(true);
    const result = await store.take('k', 'generate', at);
    expect(result.ok).toBe(expected.ok);
    if (!result.ok && !expected.ok) expect(result.waitMs).toBe(expected.waitMs);
  });

  test('answers exactly as the in-memory store for any sequence of takes and restamps', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            op: fc.constantFrom(...OPERATIONS),
            gapMs: fc.integer({ min: 0, max: 800 }),
            answerMs: fc.option(fc.integer({ min: 1, max: 300 }), { nil: undefined }),
          }),
          { maxLength: 60 },
        ),
        async (steps) => {
          const memory = new MemoryBudgetStore(limits);
          const shared = new RedisBudgetStore(one, limits, prefix());
          let now = 1_000;
          for (const { op, gapMs, answerMs } of steps) {
            now += gapMs;
            const [expected, actual] = [
              await memory.take('k', op, now),
              await shared.take('k', op, now),
            ];
            expect(actual).toEqual(expected);
            if (expected.ok && answerMs !== undefined) {
              await memory.restamp('k', op, now, now + answerMs);
              await shared.restamp('k', op, now, now + answerMs);
              // One process's clock: the next request leaves after this answer came.
              now += answerMs;
            }
            expect(await shared.usage('k', op, now)).toEqual(await memory.usage('k', op, now));
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  test('two clients on one key never exceed a limit in any window', async () => {
    const tight = parseLimits('generate=4/1s+9/5s');
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({ client: fc.constantFrom(0, 1), gapMs: fc.integer({ min: 0, max: 400 }) }),
          { minLength: 1, maxLength: 80 },
        ),
        async (steps) => {
          const name = prefix();
          const stores = [
            new RedisBudgetStore(one, tight, name),
            new RedisBudgetStore(two, tight, name),
          ];
          const sent: number[] = [];
          let now = 0;
          for (const { client, gapMs } of steps) {
            now += gapMs;
            // Both clients ask at the same moment: the scripts decide who gets the unit.
            const [mine, theirs] = await Promise.all([
              stores[client]?.take('k', 'generate', now),
              stores[1 - client]?.take('k', 'generate', now),
            ]);
            for (const take of [mine, theirs]) if (take?.ok) sent.push(now);
          }
          for (const limit of tight.generate)
            expect(busiestWindow(sent, limit)).toBeLessThanOrEqual(limit.count);
        },
      ),
      { numRuns: 30 },
    );
  });

  test('restamping moves one request to its answer time, later than it was taken', async () => {
    const store = new RedisBudgetStore(one, limits, prefix());
    await store.take('k', 'voices', 100);
    await store.restamp('k', 'voices', 100, 400);
    await store.restamp('k', 'voices', 400, 300); // earlier: ignored
    expect(await store.take('k', 'voices', 1200)).toEqual({
      ok: false,
      waitMs: 400 + windowWithMargin({ count: 1, windowMs: 1000 }) - 1200,
      limit: { count: 1, windowMs: 1000 },
    });
    const [usage] = await store.usage('k', 'voices', 1200);
    expect(usage).toEqual({ limit: { count: 1, windowMs: 1000 }, used: 1, resetAt: 1450 });
  });

  test('the daily quota holds across clients and restarts, and names the daily limit', async () => {
    const daily = parseLimits('generate=20/1m+3/1d');
    const name = prefix();
    const day = 86_400_000;
    const first = new RedisBudgetStore(one, daily, name);
    for (const at of [0, 60_000, 120_000])
      expect((await first.take('k', 'generate', at)).ok).toBe(true);
    // Another process, later the same day.
    const other = new RedisBudgetStore(two, daily, name);
    const refused = await other.take('k', 'generate', 3_600_000);
    expect(refused).toEqual({
      ok: false,
      waitMs: windowWithMargin({ count: 3, windowMs: day }) - 3_600_000,
      limit: { count: 3, windowMs: day },
    });
    const [, dailyUsage] = await other.usage('k', 'generate', 3_600_000);
    expect(dailyUsage?.used).toBe(3);
    // The key's quota: another key is not affected.
    expect((await other.take('other', 'generate', 3_600_000)).ok).toBe(true);
    expect(
      (await other.take('k', 'generate', windowWithMargin({ count: 3, windowMs: day }) + 1)).ok,
    ).toBe(true);
  });

  test('a RateGate over Redis fails at once when the wait passes its limit (quota_exhausted)', async () => {
    const clock = new FakeClock(0);
    const store = new RedisBudgetStore(one, parseLimits('generate=1/1d'), prefix());
    const gate = new RateGate({ store, clock, maxWaitMs: 60_000 });
    await gate.acquire('k', 'generate');
    const error = await gate.acquire('k', 'generate').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TtsError);
    expect((error as TtsError).kind).toBe('quota_exhausted');
    await settle();
  });

  test('the log of an idle key expires by itself', async () => {
    const name = prefix();
    const store = new RedisBudgetStore(one, limits, name);
    await store.take('k', 'status', Date.now());
    const ttl = Number(
      await (one as unknown as { pTTL(key: string): Promise<number> }).pTTL(`${name}:k:status`),
    );
    expect(ttl).toBeGreaterThan(60_000);
    expect(ttl).toBeLessThanOrEqual(windowWithMargin({ count: 2, windowMs: 500 }) + 60_000);
  });
});

describe('a Redis that stops answering (paused with SIGSTOP)', () => {
  test('every budget command gives up after its timeout, and requests go on with this shard’s share', async () => {
    const hung = await startRedis();
    const connection = await openRedis(hung.url, () => undefined);
    try {
      const limits = parseLimits('generate=4/1m');
      const shared = new RedisBudgetStore(connection, limits, prefix(), 300);
      const failures: unknown[] = [];
      const store = new FallbackBudgetStore(
        shared,
        // Two shards share the key: this one may take 2 of the 4 while Redis is away.
        new MemoryBudgetStore(shareOfLimits(limits, 2)),
        (error) => failures.push(error),
      );
      expect(await store.take('k', 'generate', 0)).toEqual({ ok: true });
      expect(failures).toEqual([]);

      hung.pause();
      // The connection stays open and the commands are written: only our timeout ends them.
      await expect(shared.take('k', 'generate', 1)).rejects.toThrow(StoreUnavailableError);
      await expect(shared.restamp('k', 'generate', 0, 5)).rejects.toThrow(/did not answer/);
      await expect(shared.usage('k', 'generate', 5)).rejects.toThrow(/did not answer/);

      // A TTS request's budget, through the gate as the client asks for it, is not held up.
      const gate = new RateGate({ store, clock: new FakeClock(10), maxWaitMs: 1000 });
      expect(await gate.acquire('k', 'generate')).toBe(10);
      await gate.answered('k', 'generate', 10);
      expect(await store.take('k', 'generate', 20)).toEqual({ ok: true });
      expect(await store.take('k', 'generate', 30)).toMatchObject({ ok: false });
      expect(failures).toHaveLength(1);
      expect(failures[0]).toBeInstanceOf(StoreUnavailableError);
    } finally {
      hung.resume();
      await connection.close();
      await hung.stop();
    }
  });
});

/** The most requests any window of `limit.windowMs` holds. */
function busiestWindow(times: readonly number[], limit: Limit): number {
  let most = 0;
  for (const start of times) {
    most = Math.max(most, times.filter((t) => t >= start && t < start + limit.windowMs).length);
  }
  return most;
}
