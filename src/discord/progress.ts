import type { Clock } from '../tts/index.ts';

/** Options of a {@link ThrottledReply}. */
export interface ThrottledReplyOptions {
  /** Shortest time between two edits; Discord tolerates about one every 2–3 s. */
  readonly intervalMs?: number;
  /** Told when an intermediate edit fails (expired token, deleted reply); later edits still run. */
  readonly onError: (error: unknown) => void;
}

/**
 * Edits a reply no more often than Discord tolerates: the latest update
 * wins, intermediate ones are dropped, and `finish` always lands last.
 */
export class ThrottledReply<T> {
  readonly #edit: (payload: T) => Promise<unknown>;
  readonly #clock: Clock;
  readonly #intervalMs: number;
  readonly #onError: (error: unknown) => void;
  #lastEditAt = Number.NEGATIVE_INFINITY;
  #pending: T | undefined;
  #chain: Promise<void> = Promise.resolve();
  #scheduled = false;
  #finished = false;
  /** Cuts the wait of a scheduled edit short when the reply finishes. */
  readonly #finishing = new AbortController();

  constructor(
    edit: (payload: T) => Promise<unknown>,
    clock: Clock,
    options: ThrottledReplyOptions,
  ) {
    this.#edit = edit;
    this.#clock = clock;
    this.#intervalMs = options.intervalMs ?? 2500;
    this.#onError = options.onError;
  }

  /** Shows `payload` soon; a later update before then replaces it. */
  update(payload: T): void {
    if (this.#finished) return;
    this.#pending = payload;
    if (this.#scheduled) return;
    this.#scheduled = true;
    this.#chain = this.#chain.then(() => this.#flush());
  }

  /** Shows the final state once any edit in flight is done; later updates are ignored. */
  async finish(payload: T): Promise<void> {
    await this.cancel();
    await this.#edit(payload);
  }

  /** Drops any scheduled update and waits for an edit in flight, so another writer can take over the reply. */
  async cancel(): Promise<void> {
    this.#finished = true;
    this.#pending = undefined;
    this.#finishing.abort();
    await this.#chain;
  }

  async #flush(): Promise<void> {
    try {
      const wait = this.#lastEditAt + this.#intervalMs - this.#clock.now();
      if (wait > 0) await this.#sleep(wait);
      this.#scheduled = false;
      const payload = this.#pending;
      this.#pending = undefined;
      if (payload === undefined || this.#finished) return;
      this.#lastEditAt = this.#clock.now();
      await this.#edit(payload);
    } catch (error) {
      this.#onError(error);
    }
  }

  /** Sleeps, returning early (without error) when the reply finishes. */
  async #sleep(ms: number): Promise<void> {
    try {
      await this.#clock.sleep(ms, this.#finishing.signal);
    } catch (error) {
      if (!this.#finishing.signal.aborted) throw error;
    }
  }
}
