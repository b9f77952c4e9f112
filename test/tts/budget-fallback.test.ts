import { describe, expect, test } from 'vitest';
import type { BudgetStore } from '../../src/tts/index.ts';
import { FallbackBudgetStore, MemoryBudgetStore } from '../../src/tts/index.ts';
import { parseLimits, shareOfLimits } from '../../src/tts/limits.ts';

const limits = parseLimits('generate=2/1m,status=3/1m');

/** A shared store that can be taken down: every call fails while `down`. */
class Flaky implements BudgetStore {
  down = false;
  readonly #store = new MemoryBudgetStore(limits);
  #check(): void {
    if (this.down) throw new Error('connection lost');
  }
  async take(...args: Parameters<BudgetStore['take']>) {
    this.#check();
    return this.#store.take(...args);
  }
  async restamp(...args: Parameters<BudgetStore['restamp']>) {
    this.#check();
    return this.#store.restamp(...args);
  }
  async usage(...args: Parameters<BudgetStore['usage']>) {
    this.#check();
    return this.#store.usage(...args);
  }
}

describe('FallbackBudgetStore', () => {
  test('answers from the shared store while it works, and leaves the local one untouched', async () => {
    const shared = new Flaky();
    const local = new MemoryBudgetStore(limits);
    const failures: unknown[] = [];
    const store = new FallbackBudgetStore(shared, local, (e) => failures.push(e));
    expect(await store.take('k', 'generate', 0)).toEqual({ ok: true });
    expect(await store.take('k', 'generate', 1)).toEqual({ ok: true });
    expect((await store.take('k', 'generate', 2)).ok).toBe(false);
    expect((await local.usage('k', 'generate', 2))[0]?.used).toBe(0);
    expect(failures).toEqual([]);
  });

  test('while the shared store is down, the local limits hold, and it is tried again after a pause', async () => {
    const shared = new Flaky();
    const local = new MemoryBudgetStore(limits);
    const failures: unknown[] = [];
    const store = new FallbackBudgetStore(shared, local, (e) => failures.push(e), 1000);
    shared.down = true;
    const takes = [];
    for (let i = 0; i < 5; i++) takes.push(await store.take('k', 'status', i));
    expect(takes.filter((t) => t.ok)).toHaveLength(3);
    await store.restamp('k', 'status', 0, 10);
    expect((await store.usage('k', 'status', 10))[0]?.used).toBe(3);
    // One failure; the calls after it did not wait on the shared store to fail again.
    expect(failures).toHaveLength(1);
    // A second later it is tried again: still down, one more failure.
    expect((await store.take('k', 'status', 1000)).ok).toBe(false);
    expect(failures).toHaveLength(2);
    // Back up: until the pause is over the local store still answers (its 3 are used)…
    shared.down = false;
    expect((await store.take('k', 'status', 1500)).ok).toBe(false);
    // …then the shared store, which has none of them.
    expect(await store.take('k', 'status', 2000)).toEqual({ ok: true });
    expect((await shared.usage('k', 'status', 2000))[0]?.used).toBe(1);
    expect(failures).toHaveLength(2);
  });

  test('the local store keeps this process to its share of the limits (limit ÷ processes)', async () => {
    const shared = new Flaky();
    shared.down = true;
    const store = new FallbackBudgetStore(
      shared,
      new MemoryBudgetStore(shareOfLimits(parseLimits('generate=10/1m'), 3)),
      () => undefined,
    );
    const takes = [];
    for (let i = 0; i < 6; i++) takes.push((await store.take('k', 'generate', i)).ok);
    expect(takes).toEqual([true, true, true, false, false, false]);
  });
});
