/**
 * v3's concurrent-job cap as slots: never more leases than the cap, held until a job is seen to
 * end, a lease that runs out for a job nobody watches, and asking after given-up jobs when the
 * cap binds. The same behaviour in memory and in Redis (shared by shards).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openRedis, type RedisConnection, RedisJobSlots } from '../../src/store/index.ts';
import { type JobSlots, JobTracker, MemoryJobSlots } from '../../src/tts/v3/index.ts';
import { FakeClock, settle } from '../support/fake-clock.ts';
import { startRedis, type TestRedis } from '../support/redis.ts';

let redis: TestRedis;
let connection: RedisConnection;
let run = 0;

beforeAll(async () => {
  redis = await startRedis();
  connection = await openRedis(redis.url, (error) => {
    throw error;
  });
});
afterAll(async () => {
  await connection?.close();
  await redis?.stop();
});

const stores: [string, () => JobSlots][] = [
  ['memory', () => new MemoryJobSlots()],
  ['redis', () => new RedisJobSlots(connection, `test-jobs:${++run}`)],
];

describe.each(stores)('%s job slots', (_name, make) => {
  test('at most `cap` leases at once; a released or run-out one frees its slot', async () => {
    const slots = make();
    expect(await slots.take('k', 'a', 2, 0, 1000)).toEqual({ ok: true });
    expect(await slots.take('k', 'b', 2, 0, 500)).toEqual({ ok: true });
    expect(await slots.take('k', 'c', 2, 100, 1100)).toEqual({ ok: false, waitMs: 400 });
    // Another key has its own slots.
    expect(await slots.take('other', 'c', 2, 100, 1100)).toEqual({ ok: true });
    await slots.release('k', 'a');
    expect(await slots.take('k', 'c', 2, 100, 1100)).toEqual({ ok: true });
    // `b` ran out at 500.
    expect(await slots.take('k', 'd', 2, 600, 1600)).toEqual({ ok: true });
  });

  test('renewing extends a lease still held, and only that', async () => {
    const slots = make();
    await slots.take('k', 'a', 1, 0, 100);
    await slots.renew('k', 'a', 0, 1000);
    expect(await slots.take('k', 'b', 1, 500, 1500)).toEqual({ ok: false, waitMs: 500 });
    await slots.release('k', 'a');
    await slots.renew('k', 'a', 500, 5000);
    expect(await slots.take('k', 'b', 1, 500, 1500)).toEqual({ ok: true });
  });

  test('no sequence of takes, renewals and releases holds more than the cap', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            action: fc.constantFrom('take', 'renew', 'release'),
            ref: fc.constantFrom('a', 'b', 'c', 'd', 'e'),
            gapMs: fc.integer({ min: 0, max: 300 }),
            leaseMs: fc.integer({ min: 1, max: 1000 }),
          }),
          { maxLength: 40 },
        ),
        async (steps) => {
          const slots = make();
          const held = new Map<string, number>();
          let now = 0;
          for (const { action, ref, gapMs, leaseMs } of steps) {
            now += gapMs;
            for (const [r, until] of held) if (until <= now) held.delete(r);
            if (action === 'take' && !held.has(ref)) {
              const taken = await slots.take('k', ref, 3, now, now + leaseMs);
              if (taken.ok) held.set(ref, now + leaseMs);
            } else if (action === 'renew' && held.has(ref)) {
              await slots.renew('k', ref, now, now + leaseMs);
              held.set(ref, now + leaseMs);
            } else if (action === 'release') {
              await slots.release('k', ref);
              held.delete(ref);
            }
            expect(held.size).toBeLessThanOrEqual(3);
          }
        },
      ),
      { numRuns: 30 },
    );
  });
});

describe('JobTracker', () => {
  function tracker(options: { probe?: (id: string) => Promise<void> } = {}) {
    const clock = new FakeClock(0);
    const errors: unknown[] = [];
    const jobs = new JobTracker({
      slots: new MemoryJobSlots(),
      keyId: 'k',
      cap: 2,
      clock,
      leaseMs: 10_000,
      maxWaitMs: 60_000,
      onError: (error) => errors.push(error),
      ...options,
    });
    return { clock, jobs, errors };
  }

  test('a job waits for a slot, and takes the one a seen-ended job gave back', async () => {
    const { clock, jobs } = tracker();
    const a = await jobs.acquire();
    jobs.bind(a, 'gen_a');
    await jobs.acquire();
    let third = false;
    void jobs.acquire().then(() => {
      third = true;
    });
    await clock.advance(1000);
    expect(third).toBe(false);
    jobs.ended('gen_a');
    await clock.advance(0);
    await settle();
    expect(third).toBe(true);
  });

  test('a job seen running keeps its slot past the lease; one given up frees it when it runs out', async () => {
    const { clock, jobs } = tracker();
    const a = await jobs.acquire();
    jobs.bind(a, 'gen_a');
    const b = await jobs.acquire();
    await clock.advance(8000);
    jobs.running('gen_a');
    jobs.abandon(b);
    let third = false;
    void jobs.acquire().then(() => {
      third = true;
    });
    await clock.advance(9000);
    expect(third).toBe(false);
    await clock.advance(2000);
    expect(third).toBe(true);
  });

  test('when the cap binds, given-up jobs are asked after, and one that ended frees its slot', async () => {
    const asked: string[] = [];
    const { clock, jobs } = tracker({
      probe: async (id) => {
        asked.push(id);
        if (asked.length >= 2) jobs.ended(id);
      },
    });
    const a = await jobs.acquire();
    jobs.bind(a, 'gen_a');
    jobs.abandon(a);
    await jobs.acquire();
    let third = false;
    void jobs.acquire().then(() => {
      third = true;
    });
    await clock.advance(500);
    expect(third).toBe(false);
    await clock.advance(1500);
    expect(asked).toEqual(['gen_a', 'gen_a']);
    expect(third).toBe(true);
  });

  test('on a key that never fills its slots, jobs given up are let go once their leases ran out', async () => {
    const { clock, jobs } = tracker();
    for (let i = 0; i < 300; i++) {
      const job = await jobs.acquire();
      jobs.bind(job, `gen_${i}`);
      jobs.abandon(job);
      await clock.advance(6000);
    }
    // Leases of 10 s, one job given up every 6 s: two at most are still within theirs.
    expect(jobs.abandonedCount).toBeLessThanOrEqual(2);
  });

  test('a slot store that fails lets the job go ahead, and says so', async () => {
    const clock = new FakeClock(0);
    const errors: unknown[] = [];
    const broken: JobSlots = {
      take: () => Promise.reject(new Error('store down')),
      renew: () => Promise.reject(new Error('store down')),
      release: () => Promise.reject(new Error('store down')),
    };
    const jobs = new JobTracker({
      slots: broken,
      keyId: 'k',
      cap: 1,
      clock,
      leaseMs: 1000,
      maxWaitMs: 1000,
      onError: (error) => errors.push(error),
    });
    await jobs.acquire();
    await jobs.acquire();
    expect(errors).toHaveLength(2);
  });

  test('an abort while waiting rejects with its reason', async () => {
    const { jobs } = tracker();
    await jobs.acquire();
    await jobs.acquire();
    const controller = new AbortController();
    const waiting = jobs.acquire(controller.signal);
    controller.abort(new Error('skipped'));
    await expect(waiting).rejects.toThrow('skipped');
  });
});
