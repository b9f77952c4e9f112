import type { BudgetStore } from './budget.ts';
import type { Clock } from './clock.ts';
import { TtsError } from './errors.ts';
import type { Operation } from './types.ts';

/** Options of a {@link RateGate}. */
export interface RateGateOptions {
  readonly store: BudgetStore;
  readonly clock: Clock;
  /** Longest wait accepted; beyond it the call fails at once with `quota_exhausted`. */
  readonly maxWaitMs: number;
}

/**
 * The only way requests obtain rate budget: callers for one key and
 * operation wait their turn in order (FIFO), then take one unit.
 */
export class RateGate {
  readonly #options: RateGateOptions;
  readonly #tails = new Map<string, Promise<void>>();

  constructor(options: RateGateOptions) {
    this.#options = options;
  }

  /** Waits until one request of `op` for the key fits its limits, counts it, and returns when (for {@link answered}). */
  acquire(keyId: string, op: Operation, signal?: AbortSignal): Promise<number> {
    const name = `${keyId}:${op}`;
    const previous = this.#tails.get(name) ?? Promise.resolve();
    const mine = previous.then(() => this.#take(keyId, op, signal));
    // The chain only needs to know that `mine` settled; its caller handles the outcome.
    const tail = mine.then(
      () => undefined,
      () => undefined,
    );
    this.#tails.set(name, tail);
    void tail.then(() => {
      if (this.#tails.get(name) === tail) this.#tails.delete(name);
    });
    return mine;
  }

  /** Counts the request acquired at `takenAt` from now on, when its answer (or failure) came back. */
  answered(keyId: string, op: Operation, takenAt: number): Promise<void> {
    return this.#options.store.restamp(keyId, op, takenAt, this.#options.clock.now());
  }

  async #take(keyId: string, op: Operation, signal?: AbortSignal): Promise<number> {
    const { store, clock, maxWaitMs } = this.#options;
    for (;;) {
      signal?.throwIfAborted();
      const now = clock.now();
      const take = await store.take(keyId, op, now);
      if (take.ok) return now;
      if (take.waitMs > maxWaitMs) {
        throw new TtsError(
          'quota_exhausted',
          `the ${op} limit of ${take.limit.count} per ${formatWindow(take.limit.windowMs)} is used up`,
          { retryAt: now + take.waitMs, limit: take.limit },
        );
      }
      await clock.sleep(take.waitMs, signal);
    }
  }
}

/** `60000` → `1 minute`, `86400000` → `1 day`. */
export function formatWindow(ms: number): string {
  const units: [number, string][] = [
    [86_400_000, 'day'],
    [3_600_000, 'hour'],
    [60_000, 'minute'],
    [1000, 'second'],
  ];
  for (const [size, name] of units) {
    if (ms >= size && ms % size === 0) {
      const n = ms / size;
      return n === 1 ? `1 ${name}` : `${n} ${name}s`;
    }
  }
  return `${ms} ms`;
}
