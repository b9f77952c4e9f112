/**
 * What the API says of a key's allowance (`X-RateLimit-Limit`, `-Remaining`, `-Reset`), kept so
 * no request leaves when the server has none left for it. The shared sliding window of the
 * budget store (configured at the plan's allowance) is what keeps shards within it; this is the
 * check that follows the server when it allows less, or counts requests we do not see.
 */
import type { BudgetStore, LimitUsage, Take } from '../budget.ts';
import type { Operation } from '../types.ts';

/** How long a window that just opened is assumed to last until an answer says (the docs' minute). */
const FRESH_WINDOW_MS = 60_000;

/** A reset further off than this is not believed (a clock or a header gone wrong). */
const MAX_RESET_MS = 10 * 60_000;

/** The allowance as the last answer told it, and requests sent since. */
export class LearnedWindow {
  #limit: number | undefined;
  #remaining: number | undefined;
  #resetAt: number | undefined;
  /** Requests taken and not yet answered. */
  #inFlight = 0;

  /** The allowance per window the server last named, if any. */
  get limit(): number | undefined {
    return this.#limit;
  }

  /** One request may leave now: it will use one of what remains. */
  taken(): void {
    this.#inFlight++;
    if (this.#remaining !== undefined) this.#remaining--;
  }

  /**
   * A request taken earlier was answered with `headers` (undefined: no answer, or one without
   * limits). What remains is the server's figure less the requests still on their way, which
   * it may not have counted yet.
   */
  answered(headers: Headers | undefined, now: number): void {
    this.#inFlight = Math.max(0, this.#inFlight - 1);
    if (headers === undefined) return;
    const limit = wholeNumber(headers.get('x-ratelimit-limit'));
    const remaining = wholeNumber(headers.get('x-ratelimit-remaining'));
    const resetAt = resetTime(headers.get('x-ratelimit-reset'), now);
    if (limit !== undefined) this.#limit = limit;
    if (remaining === undefined || resetAt === undefined) return;
    this.#remaining = remaining - this.#inFlight;
    this.#resetAt = resetAt;
  }

  /** How long to wait before one more request fits what the server said (0: go). */
  waitMs(now: number): number {
    if (this.#remaining === undefined || this.#resetAt === undefined) return 0;
    if (now >= this.#resetAt) {
      // A new window opens with the whole allowance; when it ends is known from its first answer.
      this.#remaining = this.#limit;
      this.#resetAt = this.#limit === undefined ? undefined : now + FRESH_WINDOW_MS;
      return 0;
    }
    return this.#remaining > 0 ? 0 : this.#resetAt - now;
  }
}

function wholeNumber(text: string | null): number | undefined {
  if (text === null || !/^\s*\d+\s*$/.test(text)) return undefined;
  return Number(text);
}

/**
 * `X-RateLimit-Reset` as epoch ms: Unix seconds (the vendor's older page), epoch ms, or
 * seconds from now (what "when the window resets" may also mean). Undefined when absent or
 * not believable.
 */
export function resetTime(text: string | null, now: number): number | undefined {
  if (text === null || !/^\s*\d+(\.\d+)?\s*$/.test(text)) return undefined;
  const value = Number(text);
  let at: number;
  if (value >= 1e12) at = value;
  else if (value >= 1e9) at = value * 1000;
  else at = now + value * 1000;
  return at - now > MAX_RESET_MS ? undefined : at;
}

/**
 * The budget store as v3 uses it: the shared `request` window of the key, and before it
 * what the server last said remains ({@link LearnedWindow}). One per key.
 */
export class GuardedBudgets implements BudgetStore {
  readonly #inner: BudgetStore;
  readonly #window: LearnedWindow;

  constructor(inner: BudgetStore, window: LearnedWindow) {
    this.#inner = inner;
    this.#window = window;
  }

  async take(keyId: string, op: Operation, now: number): Promise<Take> {
    const waitMs = this.#window.waitMs(now);
    if (waitMs > 0) {
      const count = this.#window.limit ?? 0;
      return { ok: false, waitMs, limit: { count, windowMs: 60_000 } };
    }
    const taken = await this.#inner.take(keyId, op, now);
    if (taken.ok) this.#window.taken();
    return taken;
  }

  restamp(keyId: string, op: Operation, takenAt: number, answeredAt: number): Promise<void> {
    return this.#inner.restamp(keyId, op, takenAt, answeredAt);
  }

  usage(keyId: string, op: Operation, now: number): Promise<LimitUsage[]> {
    return this.#inner.usage(keyId, op, now);
  }
}
