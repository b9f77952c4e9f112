/** How long to wait before reconnecting to Twitch chat. Pure. */

/** Reconnect pauses: doubling from `baseMs`, never above `maxMs`. */
export interface BackoffPolicy {
  readonly baseMs: number;
  readonly maxMs: number;
}

/** One second, doubling to a minute: Twitch asks clients to back off, not to hammer. */
export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 1000, maxMs: 60_000 };

/**
 * The pause before reconnect attempt `attempt` (0 for the first after a working connection):
 * between half and all of the capped exponential step, so many bots told to RECONNECT at
 * once do not come back in the same instant. `random` returns [0, 1).
 */
export function backoffDelay(attempt: number, random: () => number, policy: BackoffPolicy): number {
  const step = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.min(Math.max(attempt, 0), 30));
  return Math.round(step / 2 + (random() * step) / 2);
}
