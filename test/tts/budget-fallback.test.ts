import { describe, expect, test } from 'vitest';
import type { BudgetStore } from '../../src/tts/index.ts';
import { FallbackBudgetStore, MemoryBudgetStore } from '../../src/tts/index.ts';
import { parseLimits } from '../../src/tts/limits.ts';

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

  test('while the shared store is down, the local limits hold and every failure is reported', async () => {
    const shared = new Flaky();
    const local = new MemoryBudgetStore(limits);
    const failures: unknown[] = [];
    const store = new FallbackBudgetStore(shared, local, (e) => failures.push(e));
    shared.down = true;
    const takes = [];
    for (let i = 0; i < 5; i++) takes.push(await store.take('k', 'status', i));
    expect(takes.filter((t) => t.ok)).toHaveLength(3);
    await store.restamp('k', 'status', 0, 10);
    expect((await store.usage('k', 'status', 10))[0]?.used).toBe(3);
    expect(failures).toHaveLength(7);
    // Back up: the shared store answers again.
    shared.down = false;
    expect(await store.take('k', 'status', 20)).toEqual({ ok: true });
    expect(failures).toHaveLength(7);
  });
});
