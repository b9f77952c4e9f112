import type { Clock } from './clock.ts';
import { type EstimatorPrior, GenerationEstimator, type LearnedState } from './estimator.ts';

/**
 * Where each key's learned generation times are kept: the bot's store, so a restart (or
 * another shard, on Redis) starts from them. Named by key id, never by the key.
 */
export interface LearnedTimesStore {
  /** What was saved for the key; undefined when nothing readable was. */
  load(keyId: string): Promise<LearnedState | undefined>;
  save(keyId: string, learned: LearnedState): Promise<void>;
}

/** Options of {@link LearnedTimes}. */
export interface LearnedTimesOptions {
  readonly prior: EstimatorPrior;
  /** Where the times are kept; in memory only when absent. */
  readonly store?: LearnedTimesStore | undefined;
  readonly clock: Clock;
  /** A failed read or write: the estimator goes on with what it has. */
  readonly onError: (error: unknown) => void;
}

/** Fewest ms between two writes of one key's times; changes in between go out together. */
export const LEARNED_SAVE_EVERY_MS = 10_000;

/**
 * One key's {@link GenerationEstimator}: read from the store on first use, and written back
 * when it learns (at most every {@link LEARNED_SAVE_EVERY_MS}), so the first generations after
 * a start are polled as well as a warm bot's.
 */
export class LearnedTimes {
  readonly estimator: GenerationEstimator;
  readonly #keyId: string;
  readonly #options: LearnedTimesOptions;
  #restoring: Promise<void> | undefined;
  #savedAt = Number.NEGATIVE_INFINITY;
  #dirty = false;
  #writing: Promise<void> | undefined;
  /** Cuts short the wait before the next write (see {@link flush}). */
  #hurry: AbortController | undefined;

  constructor(keyId: string, options: LearnedTimesOptions) {
    this.#keyId = keyId;
    this.#options = options;
    this.estimator = new GenerationEstimator({
      prior: options.prior,
      onChange: () => this.#changed(),
    });
  }

  /** Resolves once what the store held for the key is in the estimator (read once; never rejects). */
  restored(): Promise<void> {
    this.#restoring ??= this.#restore();
    return this.#restoring;
  }

  /** Writes what is not written yet without waiting for its turn (before the store closes). */
  async flush(): Promise<void> {
    this.#savedAt = Number.NEGATIVE_INFINITY;
    this.#hurry?.abort();
    await this.#writing;
  }

  async #restore(): Promise<void> {
    const { store, onError } = this.#options;
    if (store === undefined) return;
    try {
      const learned = await store.load(this.#keyId);
      if (learned !== undefined) this.estimator.restore(learned);
    } catch (error) {
      // Without them the prior serves; what this process learns is written over them later.
      onError(error);
    }
  }

  #changed(): void {
    if (this.#options.store === undefined) return;
    this.#dirty = true;
    this.#writing ??= this.#write().finally(() => {
      this.#writing = undefined;
    });
  }

  async #write(): Promise<void> {
    const { store, clock, onError } = this.#options;
    // What the store holds must be read in before anything overwrites it.
    await this.restored();
    while (this.#dirty && store !== undefined) {
      const wait = this.#savedAt + LEARNED_SAVE_EVERY_MS - clock.now();
      if (wait > 0) {
        this.#hurry = new AbortController();
        // An abort only means "write now".
        await clock.sleep(wait, this.#hurry.signal).catch(() => undefined);
        this.#hurry = undefined;
      }
      this.#dirty = false;
      this.#savedAt = clock.now();
      try {
        await store.save(this.#keyId, this.estimator.snapshot());
      } catch (error) {
        onError(error);
      }
    }
  }
}
