import type { Clock } from './clock.ts';
import type { Model, Voice } from './types.ts';

interface Cached {
  readonly voices: Voice[];
  readonly fetchedAt: number;
}

interface Failed {
  readonly error: unknown;
  readonly failedAt: number;
}

/**
 * Voice lists per model for one key, kept for `ttlMs` and then refreshed in
 * the background while the old list is still served. At most one request
 * per model is in flight, and a failure is remembered for `failureBackoffMs`
 * (default 30 s), so the cache never spends more of the voices budget than
 * one call per model per TTL or back-off, however fast people type.
 */
export class VoiceCache {
  readonly #load: (model: Model) => Promise<Voice[]>;
  readonly #clock: Clock;
  readonly #ttlMs: number;
  readonly #failureBackoffMs: number;
  readonly #onRefreshError: (error: unknown) => void;
  readonly #cached = new Map<Model, Cached>();
  readonly #failed = new Map<Model, Failed>();
  readonly #inFlight = new Map<Model, Promise<Voice[]>>();

  constructor(options: {
    load: (model: Model) => Promise<Voice[]>;
    clock: Clock;
    ttlMs: number;
    /** How long a failed fetch is answered from memory instead of a new request. */
    failureBackoffMs?: number | undefined;
    onRefreshError: (error: unknown) => void;
  }) {
    this.#load = options.load;
    this.#clock = options.clock;
    this.#ttlMs = options.ttlMs;
    this.#failureBackoffMs = options.failureBackoffMs ?? 30_000;
    this.#onRefreshError = options.onRefreshError;
  }

  /** The voices for `model`: cached when fresh, stale while a refresh runs, fetched when absent. */
  get(model: Model): Promise<Voice[]> {
    const cached = this.#cached.get(model);
    if (cached === undefined) return this.refresh(model);
    const stale = this.#clock.now() - cached.fetchedAt >= this.#ttlMs;
    if (stale && this.#recentFailure(model) === undefined) {
      this.refresh(model).catch(this.#onRefreshError);
    }
    return Promise.resolve(cached.voices);
  }

  /**
   * Fetches the list now (joining a fetch already under way) and caches it.
   * Within the back-off after a failure, rejects with that failure without a request.
   */
  refresh(model: Model): Promise<Voice[]> {
    const running = this.#inFlight.get(model);
    if (running !== undefined) return running;
    const failed = this.#recentFailure(model);
    if (failed !== undefined) return Promise.reject(failed.error);
    const request = this.#load(model)
      .then(
        (voices) => {
          this.#cached.set(model, { voices, fetchedAt: this.#clock.now() });
          this.#failed.delete(model);
          return voices;
        },
        (error: unknown) => {
          this.#failed.set(model, { error, failedAt: this.#clock.now() });
          throw error;
        },
      )
      .finally(() => this.#inFlight.delete(model));
    this.#inFlight.set(model, request);
    return request;
  }

  #recentFailure(model: Model): Failed | undefined {
    const failed = this.#failed.get(model);
    if (failed === undefined) return undefined;
    if (this.#clock.now() - failed.failedAt < this.#failureBackoffMs) return failed;
    this.#failed.delete(model);
    return undefined;
  }
}
