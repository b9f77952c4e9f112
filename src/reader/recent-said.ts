/**
 * What each author said lately, kept so that a blocked word spelled over several of their
 * messages ("f", "u", "c", "k") is caught in the message that completes it, even when the
 * messages are read in turns of their own (a quiet chat reads each at once). Bounded in time, in
 * characters per author and in authors. Pure apart from its own memory.
 */

/** How long, how much and for how many authors {@link RecentSaid} remembers. */
export interface RecentSaidLimits {
  /** A tail older than this is forgotten: spelling a word out is done in a burst. */
  readonly keepMs: number;
  /** Characters kept per author: enough to hold the longest blocked word spelled out. */
  readonly chars: number;
  /** Authors remembered at once; the one heard from longest ago goes first. */
  readonly authors: number;
}

/** The defaults: a minute, 160 characters (a 50-letter word with a separator after each), 10,000 authors. */
export const RECENT_SAID: RecentSaidLimits = { keepMs: 60_000, chars: 160, authors: 10_000 };

/** The recent text of each author (keyed by server and author), newest last. */
export class RecentSaid {
  readonly #limits: RecentSaidLimits;
  readonly #tails = new Map<string, { text: string; at: number }>();

  constructor(limits: RecentSaidLimits = RECENT_SAID) {
    this.#limits = limits;
  }

  /** What `key` said within `keepMs` of `now`, oldest first; '' when nothing. */
  before(key: string, now: number): string {
    const tail = this.#tails.get(key);
    if (tail === undefined) return '';
    if (now - tail.at > this.#limits.keepMs) {
      this.#tails.delete(key);
      return '';
    }
    return tail.text;
  }

  /** `key` said `text` at `now` (as it will be read). */
  said(key: string, text: string, now: number): void {
    const before = this.before(key, now);
    const joined = before === '' ? text : `${before} ${text}`;
    this.#tails.delete(key);
    this.#tails.set(key, { text: joined.slice(-this.#limits.chars), at: now });
    for (const oldest of this.#tails.keys()) {
      if (this.#tails.size <= this.#limits.authors) break;
      this.#tails.delete(oldest);
    }
  }

  /** Forgets every author of a server (keys start with `prefix`). */
  forget(prefix: string): void {
    for (const key of this.#tails.keys()) if (key.startsWith(prefix)) this.#tails.delete(key);
  }
}
