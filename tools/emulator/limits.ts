/** Per-key sliding-window rate limits, exactly as the spec's Limits table. */

/** The rate-limited groups of endpoints. */
export type LimitGroup = 'tts' | 'status' | 'voices' | 'health';

/** One limit: `count` requests per `windowMs` of real time; `label` is the 429 `error` text. */
export interface Limit {
  count: number;
  windowMs: number;
  label: string;
}

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/** The spec's limits, in real time (before `timeScale`). */
export const LIMITS: Readonly<Record<LimitGroup, readonly Limit[]>> = {
  tts: [
    { count: 20, windowMs: MINUTE, label: '20 per 1 minute' },
    { count: 500, windowMs: DAY, label: '500 per 1 day' },
  ],
  status: [{ count: 60, windowMs: MINUTE, label: '60 per 1 minute' }],
  voices: [{ count: 10, windowMs: MINUTE, label: '10 per 1 minute' }],
  health: [{ count: 100, windowMs: MINUTE, label: '100 per 1 minute' }],
};

/** Outcome of one hit: allowed, or the limit that refused it and when a slot frees up. */
export type HitResult = { ok: true } | { ok: false; limit: Limit; retryAfterMs: number };

/**
 * Moving-window limiter: a hit is allowed when every limit of its group has fewer than
 * `count` accepted hits in the last window. Refused hits are not recorded.
 */
export class RateLimiter {
  readonly #timeScale: number;
  readonly #now: () => number;
  /** key + group + limit index → accepted hit times, oldest first. */
  readonly #hits = new Map<string, number[]>();

  constructor(timeScale: number, now: () => number) {
    this.#timeScale = timeScale;
    this.#now = now;
  }

  /** Takes one hit for `key` in `group`, or reports which limit refuses it. */
  hit(key: string, group: LimitGroup): HitResult {
    const now = this.#now();
    const limits = LIMITS[group];
    const logs = limits.map((limit, i) => this.#log(`${group}\u0000${i}\u0000${key}`, limit, now));
    for (const [i, limit] of limits.entries()) {
      const log = logs[i] ?? [];
      if (log.length >= limit.count) {
        const oldest = log[log.length - limit.count] ?? now;
        const retryAfterMs = Math.max(0, oldest + this.windowOf(limit) - now);
        return { ok: false, limit, retryAfterMs };
      }
    }
    for (const log of logs) log.push(now);
    return { ok: true };
  }

  /** Window length of a limit after scaling. */
  windowOf(limit: Limit): number {
    return limit.windowMs * this.#timeScale;
  }

  /** Forgets every recorded hit. */
  reset(): void {
    this.#hits.clear();
  }

  #log(id: string, limit: Limit, now: number): number[] {
    let log = this.#hits.get(id);
    if (!log) {
      log = [];
      this.#hits.set(id, log);
    }
    const cutoff = now - this.windowOf(limit);
    let drop = 0;
    while (drop < log.length && (log[drop] ?? 0) <= cutoff) drop++;
    if (drop > 0) log.splice(0, drop);
    return log;
  }
}
