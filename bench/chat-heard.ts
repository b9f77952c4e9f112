/**
 * Pure parts of the busy-chat rows added for issues 18 and 21: when each message was heard
 * (its item's first audio at the fake voice server), and how many generations ran at once.
 */
import { messagesRead } from './chat-plan.ts';

/** One item the bot spoke: the text it generated and when its audio began at the voice server. */
export interface HeardItem {
  readonly text: string;
  readonly startedAt: number;
}

/**
 * Posted → heard, in ms, for every message named in a heard item's text (`Message <index>`),
 * given when each message was posted; a message in two items counts at its first.
 */
export function heardDelays(
  postedAt: readonly number[],
  items: readonly HeardItem[],
): Map<number, number> {
  const delays = new Map<number, number>();
  for (const item of items) {
    for (const index of messagesRead([item.text])) {
      const posted = postedAt[index];
      if (posted === undefined || delays.has(index)) continue;
      delays.set(index, item.startedAt - posted);
    }
  }
  return delays;
}

/**
 * Pairs the bot's generations, in the order they were made, with the starts of speech at the
 * voice server, in order: the bot speaks its items in the order it generates them. Pairs as
 * many as both have; `unpaired` says how many of either were left over (0 when they agree).
 */
export function pairItems(
  texts: readonly string[],
  starts: readonly number[],
): { readonly items: HeardItem[]; readonly unpaired: number } {
  const n = Math.min(texts.length, starts.length);
  const items = Array.from({ length: n }, (_, i) => ({
    text: texts[i] ?? '',
    startedAt: starts[i] ?? 0,
  }));
  return { items, unpaired: Math.abs(texts.length - starts.length) };
}

/** A span of time a job ran, `end` undefined while it still runs (it then counts until `now`). */
export interface Span {
  readonly start: number;
  readonly end: number | undefined;
}

/** The most spans running at one moment; a span that ends as another starts does not overlap it. */
export function maxConcurrent(spans: readonly Span[], now = Number.POSITIVE_INFINITY): number {
  const events: [number, number][] = [];
  for (const span of spans) {
    events.push([span.start, 1], [span.end ?? now, -1]);
  }
  // Ends before starts at the same instant.
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let running = 0;
  let most = 0;
  for (const [, change] of events) {
    running += change;
    most = Math.max(most, running);
  }
  return most;
}
