/**
 * Spacing of chat turns by the key's generation budget. Spending a minute's 20 generations in
 * the first seconds of a burst would leave the chat silent until the window moves on; spread
 * over the window instead, each turn waits a little longer and merges more. Pure.
 */
import type { LimitUsage } from '../tts/index.ts';

/** Windows longer than this (the daily limit) do not pace turns: a stream is read as it comes. */
export const PACED_WINDOW_MS = 5 * 60_000;

/**
 * When the next chat turn may start, given when the last one did: in every short window, the
 * requests left are spread evenly until the window frees its oldest one (the time until then,
 * divided by the requests left plus one, after the last turn); with none left, not before it
 * frees one. `lastTurnAt` is 0 before the first turn.
 */
export function nextTurnAt(usages: readonly LimitUsage[], lastTurnAt: number, now: number): number {
  let at = 0;
  for (const { limit, used, resetAt } of usages) {
    if (limit.windowMs > PACED_WINDOW_MS || resetAt === null) continue;
    const left = limit.count - used;
    const untilReset = Math.max(0, resetAt - now);
    at = Math.max(at, left <= 0 ? resetAt : lastTurnAt + Math.ceil(untilReset / (left + 1)));
  }
  return at;
}
