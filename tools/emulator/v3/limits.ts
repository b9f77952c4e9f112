/** v3 limits: one request window per API key and a cap on concurrent generations. Pure. */

/** An account plan, as the emulator's users carry it. */
export type Plan = 'free' | 'paid';

/** A plan's v3 limits: requests per (scaled) minute and generations in flight. */
export interface V3PlanLimits {
  perMinute: number;
  concurrent: number;
}

/**
 * The figures of the vendor's older rate-limit page (Audixa-Docs `0de7eec`,
 * `guides/rate-limits.mdx`); the newest revision publishes none.
 */
export const V3_LIMITS: Readonly<Record<Plan, V3PlanLimits>> = {
  free: { perMinute: 120, concurrent: 5 },
  paid: { perMinute: 240, concurrent: 20 },
};

const MINUTE = 60_000;

/** Where a key stands in its window, as the `X-RateLimit-*` headers tell it. */
export interface WindowState {
  limit: number;
  remaining: number;
  /** When the window ends, on the emulator's clock (ms since epoch). */
  resetAt: number;
}

/** Outcome of one request: taken, or refused until the window ends. */
export type TakeResult = WindowState & ({ ok: true } | { ok: false; retryAfterMs: number });

/**
 * Fixed-window counter per key: a window opens at the key's first request and
 * lasts a minute times `timeScale`; refused requests are not counted.
 */
export class WindowLimiter {
  readonly #windowMs: number;
  readonly #now: () => number;
  readonly #windows = new Map<string, { start: number; count: number }>();

  constructor(timeScale: number, now: () => number) {
    this.#windowMs = MINUTE * timeScale;
    this.#now = now;
  }

  /** Takes one request for `key` under an allowance of `limit` per window. */
  take(key: string, limit: number): TakeResult {
    const now = this.#now();
    let window = this.#windows.get(key);
    if (!window || now >= window.start + this.#windowMs) {
      window = { start: now, count: 0 };
      this.#windows.set(key, window);
    }
    const resetAt = window.start + this.#windowMs;
    if (window.count >= limit) {
      return { ok: false, limit, remaining: 0, resetAt, retryAfterMs: resetAt - now };
    }
    window.count += 1;
    return { ok: true, limit, remaining: limit - window.count, resetAt };
  }

  /** Forgets every window. */
  reset(): void {
    this.#windows.clear();
  }
}

/** The `X-RateLimit-*` headers of an answer (Reset in Unix seconds), plus `Retry-After` on refusal. */
export function limitHeaders(state: TakeResult): Record<string, string> {
  const headers: Record<string, string> = {
    'x-ratelimit-limit': String(state.limit),
    'x-ratelimit-remaining': String(state.remaining),
    'x-ratelimit-reset': String(Math.ceil(state.resetAt / 1000)),
  };
  if (!state.ok) headers['retry-after'] = String(retryAfterSeconds(state.retryAfterMs));
  return headers;
}

/** Whole seconds to wait, at least 1. */
export function retryAfterSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

/** The vendor's 429 text, with the real wait instead of its example's 30 seconds. */
export function rateLimitDetail(retryAfterMs: number): string {
  return `Rate limit exceeded. Please retry after ${retryAfterSeconds(retryAfterMs)} seconds.`;
}

/** The emulator's 429 text for the concurrent-generation cap (the vendor documents none). */
export function concurrencyDetail(cap: number): string {
  return `Concurrent generation limit reached (${cap} in progress). Wait for one to complete or fail.`;
}
