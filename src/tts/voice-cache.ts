import type { Clock } from './clock.ts';
import type { Model, Voice } from './types.ts';

interface Cached {
  readonly voices: Voice[];
  readonly fetchedAt: number;
}

/**
 * Voice lists per model for one key, kept for `ttlMs` and then refreshed in
 * the background while the old list is still served. At most one request
 * per model is in flight, so the cache never spends more of the voices
 * budget than one call per model per TTL.
 */
export class VoiceCache {
  readonly #load: (model: Model) => Promise<Voice[]>;
  readonly #clock: Clock;
  readonly #ttlMs: number;
  readonly #onRefreshError: (error: unknown) => void;
  readonly #cached = new Map<Model, Cached>();
  readonly #inFlight = new Map<Model, Promise<Voice[]>>();

  constructor(options: {
    load: (model: Model) => Promise<Voice[]>;
    clock: Clock;
    ttlMs: number;
    onRefreshError: (error: unknown) => void;
  }) {
    this.#load = options.load;
    this.#clock = options.clock;
    this.#ttlMs = options.ttlMs;
    this.#onRefreshError = options.onRefreshError;
  }

  /** The voices for `model`: cached when fresh, stale while a refresh runs, fetched when absent. */
  get(model: Model): Promise<Voice[]> {
    const cached = this.#cached.get(model);
    if (cached === undefined) return this.refresh(model);
    if (this.#clock.now() - cached.fetchedAt >= this.#ttlMs) {
      this.refresh(model).catch(this.#onRefreshError);
    }
    return Promise.resolve(cached.voices);
  }

  /** Fetches the list now (joining a fetch already under way) and caches it. */
  refresh(model: Model): Promise<Voice[]> {
    const running = this.#inFlight.get(model);
    if (running !== undefined) return running;
    const request = this.#load(model)
      .then((voices) => {
        this.#cached.set(model, { voices, fetchedAt: this.#clock.now() });
        return voices;
      })
      .finally(() => this.#inFlight.delete(model));
    this.#inFlight.set(model, request);
    return request;
  }
}
