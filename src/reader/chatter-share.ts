/**
 * Fair between chatters: while others wait, one chatter's messages take at most a third of what
 * is read in any minute; the rest of a flooder's messages wait at the back, so they are the
 * first to go stale. Shares are counted in characters as the backlog counts them
 * (`batchCost`): reading time, not message count, is what a flood takes from the others. Pure:
 * time is passed in.
 */
import { batchCost } from './backlog.ts';
import type { ChatLine } from './compose.ts';

/** What the share needs of a message. */
export type ShareLine = Pick<ChatLine, 'authorId' | 'authorName' | 'text'>;

/** Settings of a {@link ChatterShare}. */
export interface ShareOptions {
  /** The sliding window read shares are counted over. */
  readonly windowMs: number;
  /** The most of the window one chatter may take while others wait. */
  readonly share: number;
}

/** A minute, and a third of it. */
export const DEFAULT_SHARE: ShareOptions = { windowMs: 60_000, share: 1 / 3 };

/** The waiting messages in reading order: `ordered` is the eligible ones, then `held`. */
export interface FairOrder<M> {
  readonly ordered: M[];
  /** Over their share while others wait: not for this batch, and first to go stale. */
  readonly held: M[];
}

interface Read {
  readonly at: number;
  readonly authorId: string;
  readonly chars: number;
}

/** One server's read characters per chatter over a sliding window, and the order it implies. */
export class ChatterShare {
  readonly #options: ShareOptions;
  #reads: Read[] = [];

  constructor(options: ShareOptions = DEFAULT_SHARE) {
    this.#options = options;
  }

  /** Counts messages as read at `now` (those taken into a batch; a chorus by its first message). */
  record(now: number, messages: readonly ShareLine[]): void {
    for (const m of messages)
      this.#reads.push({ at: now, authorId: m.authorId, chars: batchCost(m) });
  }

  /** Characters read per chatter within the window before `now`, and in all. */
  window(now: number): { byAuthor: Map<string, number>; total: number } {
    const since = now - this.#options.windowMs;
    this.#reads = this.#reads.filter((read) => read.at > since);
    const byAuthor = new Map<string, number>();
    let total = 0;
    for (const read of this.#reads) {
      byAuthor.set(read.authorId, (byAuthor.get(read.authorId) ?? 0) + read.chars);
      total += read.chars;
    }
    return { byAuthor, total };
  }

  /**
   * Orders the waiting messages (arrival order, priority first) as if read in turn. A message
   * is held when another chatter still waits, reading it would take its author past the share,
   * and its author is not the least read of those waiting (so reading never stalls); once a
   * chatter is held, so are their later messages. `exempt` (priority) messages are never held.
   */
  order<M extends ShareLine>(
    now: number,
    waiting: readonly M[],
    exempt: (message: M) => boolean = () => false,
  ): FairOrder<M> {
    const { byAuthor, total: readTotal } = this.window(now);
    let total = readTotal;
    const remaining = new Map<string, number>();
    for (const m of waiting) remaining.set(m.authorId, (remaining.get(m.authorId) ?? 0) + 1);
    const heldAuthors = new Set<string>();
    const ordered: M[] = [];
    const held: M[] = [];
    for (const m of waiting) {
      const author = m.authorId;
      const read = byAuthor.get(author) ?? 0;
      const cost = batchCost(m);
      let othersWait = false;
      let leastRead = true;
      for (const [other, count] of remaining) {
        if (other === author || count === 0) continue;
        othersWait = true;
        if ((byAuthor.get(other) ?? 0) < read) leastRead = false;
      }
      const within = read + cost <= this.#options.share * (total + cost);
      const free = exempt(m) || !othersWait || within || leastRead;
      if (heldAuthors.has(author) || !free) {
        heldAuthors.add(author);
        held.push(m);
        continue;
      }
      ordered.push(m);
      byAuthor.set(author, read + cost);
      total += cost;
      remaining.set(author, (remaining.get(author) ?? 1) - 1);
    }
    return { ordered: [...ordered, ...held], held };
  }
}
