import type { BudgetStore, LimitUsage, Take } from './budget.ts';
import type { Operation } from './types.ts';

/** How long after a failure the shared store is left alone before it is tried again. */
const RETRY_SHARED_MS = 5000;

/**
 * A shared budget store (Redis) that outlives its backend's outages: while the
 * shared store fails, each call is answered by a local store, so speech in flight keeps
 * polling instead of failing. Give the local store this process's share of the limits
 * (`shareOfLimits`), so shards sharing a key stay within it together. After a failure the
 * shared store is left alone for `retryAfterMs` (of the callers' clock), so calls do not each
 * wait for it to fail; the shared store must fail in bounded time (RedisBudgetStore's timeout).
 */
export class FallbackBudgetStore implements BudgetStore {
  readonly #shared: BudgetStore;
  readonly #local: BudgetStore;
  readonly #onFallback: (error: unknown) => void;
  readonly #retryAfterMs: number;
  #sharedDownUntil = Number.NEGATIVE_INFINITY;

  /** `onFallback` hears each failure of the shared store (for a log line). */
  constructor(
    shared: BudgetStore,
    local: BudgetStore,
    onFallback: (error: unknown) => void,
    retryAfterMs = RETRY_SHARED_MS,
  ) {
    this.#shared = shared;
    this.#local = local;
    this.#onFallback = onFallback;
    this.#retryAfterMs = retryAfterMs;
  }

  take(keyId: string, op: Operation, now: number): Promise<Take> {
    return this.#either(
      now,
      () => this.#shared.take(keyId, op, now),
      () => this.#local.take(keyId, op, now),
    );
  }

  restamp(keyId: string, op: Operation, takenAt: number, answeredAt: number): Promise<void> {
    // A unit taken locally gets its later time there; one taken in the shared store before it
    // failed simply stays at its earlier time, which only counts it sooner.
    return this.#either(
      answeredAt,
      () => this.#shared.restamp(keyId, op, takenAt, answeredAt),
      () => this.#local.restamp(keyId, op, takenAt, answeredAt),
    );
  }

  usage(keyId: string, op: Operation, now: number): Promise<LimitUsage[]> {
    return this.#either(
      now,
      () => this.#shared.usage(keyId, op, now),
      () => this.#local.usage(keyId, op, now),
    );
  }

  discard(keyId: string): void {
    this.#shared.discard?.(keyId);
    this.#local.discard?.(keyId);
  }

  /** The shared store's answer, or the local one's while the shared store fails. */
  async #either<T>(at: number, shared: () => Promise<T>, local: () => Promise<T>): Promise<T> {
    if (at < this.#sharedDownUntil) return local();
    try {
      return await shared();
    } catch (error) {
      this.#sharedDownUntil = at + this.#retryAfterMs;
      this.#onFallback(error);
      return local();
    }
  }
}
