import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { type BudgetJournal, MemoryBudgetStore } from '../../src/tts/budget.ts';
import { RateGate } from '../../src/tts/gate.ts';
import { DEFAULT_LIMITS, type Limit, parseLimits } from '../../src/tts/limits.ts';
import { OPERATIONS, type Operation } from '../../src/tts/types.ts';
import { FakeClock, settle } from '../support/fake-clock.ts';

/** The most requests any window of `limit.windowMs` (as the server sees it) holds. */
function busiestWindow(times: readonly number[], limit: Limit): number {
  let most = 0;
  for (let i = 0; i < times.length; i++) {
    const start = times[i] ?? 0;
    const inWindow = times.filter((t) => t >= start && t < start + limit.windowMs).length;
    most = Math.max(most, inWindow);
  }
  return most;
}

class MapJournal implements BudgetJournal {
  readonly saved = new Map<string, number[]>();
  async load(name: string) {
    return this.saved.get(name);
  }
  async save(name: string, times: readonly number[]) {
    this.saved.set(name, [...times]);
  }
}

describe('MemoryBudgetStore', () => {
  test('no sequence of requests ever exceeds a limit in any window', async () => {
    const limits = parseLimits('generate=5/1s+12/10s,status=3/500ms,voices=2/1s,health=4/1s');
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            op: fc.constantFrom(...OPERATIONS),
            key: fc.constantFrom('k1', 'k2'),
            gapMs: fc.integer({ min: 0, max: 700 }),
          }),
          { maxLength: 200 },
        ),
        async (requests) => {
          const store = new MemoryBudgetStore(limits);
          const sent = new Map<string, number[]>();
          let now = 0;
          for (const { op, key, gapMs } of requests) {
            now += gapMs;
            const take = await store.take(key, op, now);
            if (take.ok) sent.set(`${key}:${op}`, [...(sent.get(`${key}:${op}`) ?? []), now]);
            else expect(take.waitMs).toBeGreaterThan(0);
          }
          for (const [name, times] of sent) {
            const op = name.split(':')[1] as Operation;
            for (const limit of limits[op]) {
              expect(busiestWindow(times, limit)).toBeLessThanOrEqual(limit.count);
            }
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  test('the daily window survives a restart through the journal', async () => {
    const journal = new MapJournal();
    const limits = parseLimits('generate=100/1m+3/1d');
    const before = new MemoryBudgetStore(limits, journal);
    for (let i = 0; i < 3; i++)
      expect((await before.take('k', 'generate', 1000 * i)).ok).toBe(true);
    const after = new MemoryBudgetStore(limits, journal);
    const take = await after.take('k', 'generate', 10 * 60_000);
    expect(take.ok).toBe(false);
    expect(take.ok === false && take.limit.windowMs).toBe(86_400_000);
    const usage = await after.usage('k', 'generate', 10 * 60_000);
    expect(usage.map((u) => u.used)).toEqual([0, 3]);
    expect(usage[1]?.resetAt).toBeGreaterThan(86_400_000);
  });

  test('restamp counts a request from its answer: the window moves later, order is kept', async () => {
    const journal = new MapJournal();
    const store = new MemoryBudgetStore(parseLimits('generate=1/1s+5/1d'), journal);
    expect((await store.take('k', 'generate', 0)).ok).toBe(true);
    await store.restamp('k', 'generate', 0, 300);
    // Without the restamp the request at 0 would have left the window (1 s + 50 ms margin) at 1050.
    expect(await store.take('k', 'generate', 1100)).toMatchObject({ ok: false, waitMs: 250 });
    expect((await store.take('k', 'generate', 1350)).ok).toBe(true);
    expect(journal.saved.get('k:generate')).toEqual([300, 1350]);
    // Unknown or earlier times change nothing.
    await store.restamp('k', 'generate', 12345, 20_000);
    await store.restamp('k', 'generate', 1350, 1000);
    expect(journal.saved.get('k:generate')).toEqual([300, 1350]);
  });

  test('a journal load that fails once is retried by the next call, not cached', async () => {
    const journal = new MapJournal();
    journal.saved.set('k:generate', [0, 1000]);
    let failures = 1;
    const flaky: BudgetJournal = {
      load: async (name) => {
        if (failures-- > 0) throw new Error('store briefly down');
        return journal.load(name);
      },
      save: (name, times) => journal.save(name, times),
    };
    const store = new MemoryBudgetStore(parseLimits('generate=100/1m+3/1d'), flaky);
    await expect(store.take('k', 'generate', 5000)).rejects.toThrow('store briefly down');
    expect((await store.take('k', 'generate', 6000)).ok).toBe(true);
    expect(journal.saved.get('k:generate')).toEqual([0, 1000, 6000]);
    expect((await store.take('k', 'generate', 7000)).ok).toBe(false);
  });

  test('minute windows are not written to the journal', async () => {
    const journal = new MapJournal();
    const store = new MemoryBudgetStore(DEFAULT_LIMITS, journal);
    await store.take('k', 'status', 0);
    await store.take('k', 'generate', 0);
    expect([...journal.saved.keys()]).toEqual(['k:generate']);
  });
});

describe('MemoryBudgetStore holds only what a window can still see', () => {
  const limits = parseLimits('generate=2/1s,status=3/1s,voices=2/1s,health=4/1s');

  test('the logs of keys tried once are dropped once their requests left every window', async () => {
    const store = new MemoryBudgetStore(limits);
    for (let i = 0; i < 200; i++) await store.take(`key${i}`, 'voices', i);
    expect(store.size).toBe(200);
    await store.take('later', 'voices', 10_000);
    expect(store.size).toBe(1);
  });

  test('a log still counting requests is kept, and its count is right after a sweep', async () => {
    const store = new MemoryBudgetStore(limits);
    await store.take('busy', 'generate', 0);
    await store.take('idle', 'generate', 0);
    await store.take('busy', 'generate', 1500);
    await store.take('other', 'generate', 2100);
    expect(store.size).toBe(2);
    const [usage] = await store.usage('busy', 'generate', 2100);
    expect(usage?.used).toBe(1);
  });

  test('sweeps that run while other calls wait on a slow journal lose no count', async () => {
    const daily = parseLimits('generate=3/1h,status=3/1s,voices=2/1s,health=4/1s');
    const journal = new MapJournal();
    const slow: BudgetJournal = {
      load: async (name) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        return journal.load(name);
      },
      save: (name, times) => journal.save(name, times),
    };
    const store = new MemoryBudgetStore(daily, slow);
    const takes = await Promise.all(
      Array.from({ length: 6 }, (_, i) => store.take('k', 'generate', i * 1000)),
    );
    for (let i = 0; i < 20; i++) await store.take(`other${i}`, 'voices', 10_000 + i * 3000);
    expect(takes.filter((take) => take.ok)).toHaveLength(3);
    expect((await store.take('k', 'generate', 100_000)).ok).toBe(false);
  });

  test('discard drops every log of one key that is not in use, and nothing else', async () => {
    const store = new MemoryBudgetStore(limits);
    await store.take('tried', 'voices', 0);
    await store.take('tried', 'status', 0);
    await store.take('kept', 'voices', 0);
    store.discard('tried');
    expect(store.size).toBe(1);
    const [usage] = await store.usage('kept', 'voices', 1);
    expect(usage?.used).toBe(1);
  });
});

describe('RateGate', () => {
  test('30 requests at once: 20 go now, the rest after the minute, in order', async () => {
    const clock = new FakeClock(0);
    const gate = new RateGate({
      store: new MemoryBudgetStore(DEFAULT_LIMITS),
      clock,
      maxWaitMs: 120_000,
    });
    const grantedAt: number[] = [];
    const order: number[] = [];
    const all = Array.from({ length: 30 }, (_, i) =>
      gate.acquire('k', 'generate').then(() => {
        grantedAt.push(clock.now());
        order.push(i);
      }),
    );
    await clock.advance(0);
    expect(grantedAt).toHaveLength(20);
    await clock.advance(65_000);
    await Promise.all(all);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(grantedAt.slice(0, 20).every((t) => t === 0)).toBe(true);
    expect(grantedAt.slice(20).every((t) => t >= 60_000 && t < 65_000)).toBe(true);
  });

  test('a wait beyond maxWaitMs fails at once with quota_exhausted and when it resets', async () => {
    const clock = new FakeClock(0);
    const limits = parseLimits('generate=10/1m+2/1d');
    const gate = new RateGate({ store: new MemoryBudgetStore(limits), clock, maxWaitMs: 120_000 });
    await gate.acquire('k', 'generate');
    await gate.acquire('k', 'generate');
    await expect(gate.acquire('k', 'generate')).rejects.toMatchObject({
      kind: 'quota_exhausted',
      retryAt: expect.any(Number),
      message: 'the generate limit of 2 per 1 day is used up',
      limit: { count: 2, windowMs: 86_400_000 },
    });
  });

  test('an aborted waiter leaves the queue and does not block the next', async () => {
    const clock = new FakeClock(0);
    const limits = parseLimits('status=1/1s');
    const gate = new RateGate({ store: new MemoryBudgetStore(limits), clock, maxWaitMs: 10_000 });
    await gate.acquire('k', 'status');
    const controller = new AbortController();
    const aborted = gate.acquire('k', 'status', controller.signal);
    const next = gate.acquire('k', 'status');
    controller.abort(new Error('skipped'));
    await expect(aborted).rejects.toThrow('skipped');
    await settle();
    await clock.advance(1100);
    await expect(next).resolves.toBe(1050);
  });
});
