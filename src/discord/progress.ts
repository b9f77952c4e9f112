import type { Clock } from '../tts/index.ts';

/**
 * Edits a reply no more often than Discord tolerates: the latest update
 * wins, intermediate ones are dropped, and `finish` always lands last.
 */
export class ThrottledReply<T> {
  readonly #edit: (payload: T) => Promise<unknown>;
  readonly #clock: Clock;
  readonly #intervalMs: number;
  #lastEditAt = Number.NEGATIVE_INFINITY;
  #pending: T | undefined;
  #chain: Promise<void> = Promise.resolve();
  #scheduled = false;
  #finished = false;
  /** Cuts the wait of a scheduled edit short when the reply finishes. */
  readonly #finishing = new AbortController();

  constructor(edit: (payload: T) => Promise<unknown>, clock: Clock, intervalMs = 2500) {
    this.#edit = edit;
    this.#clock = clock;
    this.#intervalMs = intervalMs;
  }

  /** Shows `payload` soon; a later update before then replaces it. */
  update(payload: T): void {
    if (this.#finished) return;
    this.#pending = payload;
    if (this.#scheduled) return;
    this.#scheduled = true;
    this.#chain = this.#chain.then(async () => {
      const wait = this.#lastEditAt + this.#intervalMs - this.#clock.now();
      if (wait > 0) {
        await this.#clock.sleep(wait, this.#finishing.signal).catch(() => undefined);
      }
      this.#scheduled = false;
      const payload = this.#pending;
      this.#pending = undefined;
      if (payload !== undefined && !this.#finished) await this.#send(payload);
    });
  }

  /** Shows the final state once any edit in flight is done; later updates are ignored. */
  async finish(payload: T): Promise<void> {
    this.#finished = true;
    this.#pending = undefined;
    this.#finishing.abort();
    await this.#chain;
    await this.#edit(payload);
  }

  async #send(payload: T): Promise<void> {
    this.#lastEditAt = this.#clock.now();
    await this.#edit(payload);
  }
}
