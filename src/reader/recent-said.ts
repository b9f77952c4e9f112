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

/** One message of an author's recent text. */
interface Part {
  /** The message's id: an edit replaces its text where it was said. */
  readonly id: string;
  text: string;
}

/** The recent text of each author (keyed by server and author), newest last, message by message. */
export class RecentSaid {
  readonly #limits: RecentSaidLimits;
  readonly #tails = new Map<string, { parts: Part[]; at: number }>();

  constructor(limits: RecentSaidLimits = RECENT_SAID) {
    this.#limits = limits;
  }

  /**
   * What `key` said within `keepMs` of `now`, oldest first; '' when nothing. With `messageId`,
   * only what they said before that message (an edit of it is screened after what came before
   * it, not after its own old text); all of it when that message is no longer remembered.
   */
  before(key: string, now: number, messageId?: string): string {
    const parts = this.#parts(key, now);
    const own = messageId === undefined ? -1 : parts.findIndex((part) => part.id === messageId);
    return (own === -1 ? parts : parts.slice(0, own)).map((part) => part.text).join(' ');
  }

  /**
   * What `key` said after message `messageId` within `keepMs` of `now`, oldest first: an edit
   * of an older message can complete a word with what came later. '' when nothing, or when that
   * message is no longer remembered.
   */
  after(key: string, now: number, messageId: string): string {
    const parts = this.#parts(key, now);
    const own = parts.findIndex((part) => part.id === messageId);
    if (own === -1) return '';
    return parts
      .slice(own + 1)
      .map((part) => part.text)
      .join(' ');
  }

  /**
   * `key` said `text` in message `messageId` at `now` (as it will be read). A message already
   * remembered was edited: its new text takes the place of its old one.
   */
  said(key: string, messageId: string, text: string, now: number): void {
    const parts = this.#parts(key, now);
    const own = parts.find((part) => part.id === messageId);
    if (own === undefined) parts.push({ id: messageId, text });
    else own.text = text;
    this.#keep(key, parts, now);
  }

  /** Message `messageId` of `key` is not read after all (an edit blocked it): its text goes. */
  unsaid(key: string, messageId: string, now: number): void {
    const parts = this.#parts(key, now).filter((part) => part.id !== messageId);
    if (parts.length === 0) this.#tails.delete(key);
    else this.#keep(key, parts, now);
  }

  /** Forgets every author of a server (keys start with `prefix`). */
  forget(prefix: string): void {
    for (const key of this.#tails.keys()) if (key.startsWith(prefix)) this.#tails.delete(key);
  }

  #parts(key: string, now: number): Part[] {
    const tail = this.#tails.get(key);
    if (tail === undefined) return [];
    if (now - tail.at > this.#limits.keepMs) {
      this.#tails.delete(key);
      return [];
    }
    return tail.parts;
  }

  // Keeps the last `chars` characters of `parts` (joined with a space) as `key`'s tail, and the
  // authors heard from last.
  #keep(key: string, parts: Part[], now: number): void {
    let excess = parts.reduce((sum, part) => sum + part.text.length + 1, -1) - this.#limits.chars;
    while (excess > 0) {
      const first = parts[0];
      if (first === undefined) break;
      if (excess > first.text.length) {
        parts.shift();
        excess -= first.text.length + 1;
      } else {
        first.text = first.text.slice(excess);
        excess = 0;
      }
    }
    this.#tails.delete(key);
    this.#tails.set(key, { parts, at: now });
    for (const oldest of this.#tails.keys()) {
      if (this.#tails.size <= this.#limits.authors) break;
      this.#tails.delete(oldest);
    }
  }
}
