import type { BudgetStore, LimitUsage, Take } from './budget.ts';
import type { Operation } from './types.ts';

/**
 * A shared budget store (Redis) that outlives its backend's outages: while the
 * shared store fails, each call is answered by a local store with the same
 * limits, so speech in flight keeps polling instead of failing. A local
 * answer is exact for one process; shards sharing a key may together exceed
 * it during the outage, and the client's 429 back-off covers what slips by.
 */
export class FallbackBudgetStore implements BudgetStore {
  readonly #shared: BudgetStore;
  readonly #local: BudgetStore;
  readonly #onFallback: (error: unknown) => void;

  /** `onFallback` hears each failure of the shared store (for a log line). */
  constructor(shared: BudgetStore, local: BudgetStore, onFallback: (error: unknown) => void) {
    this.#shared = shared;
    this.#local = local;
    this.#onFallback = onFallback;
  }

  async take(keyId: string, op: Operation, now: number): Promise<Take> {
    try {
      return await this.#shared.take(keyId, op, now);
    } catch (error) {
      this.#onFallback(error);
      return this.#local.take(keyId, op, now);
    }
  }

  async restamp(keyId: string, op: Operation, takenAt: number, answeredAt: number): Promise<void> {
    try {
      await this.#shared.restamp(keyId, op, takenAt, answeredAt);
    } catch (error) {
      // The unit was taken locally (or the shared entry simply stays at its earlier time,
      // which only counts it sooner); either way the local log gets the later time.
      this.#onFallback(error);
      await this.#local.restamp(keyId, op, takenAt, answeredAt);
    }
  }

  async usage(keyId: string, op: Operation, now: number): Promise<LimitUsage[]> {
    try {
      return await this.#shared.usage(keyId, op, now);
    } catch (error) {
      this.#onFallback(error);
      return this.#local.usage(keyId, op, now);
    }
  }

  discard(keyId: string): void {
    this.#shared.discard?.(keyId);
    this.#local.discard?.(keyId);
  }
}
