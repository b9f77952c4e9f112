/** Twitch's limit on JOINs for an anonymous connection: a sliding window, and a pacer over it. */
import type { Clock } from '../tts/index.ts';

/** At most `count` channels joined within any `windowMs`. */
export interface JoinLimit {
  readonly count: number;
  readonly windowMs: number;
}

/** Twitch's limit for a connection that is not a verified bot: 20 joins per 10 seconds. */
export const TWITCH_JOIN_LIMIT: JoinLimit = { count: 20, windowMs: 10_000 };

/** How many joins may go now, or how long until one may (`sentAt`: times of earlier joins). */
export function joinAllowance(
  sentAt: readonly number[],
  now: number,
  limit: JoinLimit,
): { readonly now: number; readonly waitMs: number } {
  const recent = sentAt.filter((at) => at > now - limit.windowMs);
  const free = limit.count - recent.length;
  if (free > 0) return { now: free, waitMs: 0 };
  const oldest = Math.min(...recent);
  return { now: 0, waitMs: Math.max(1, oldest + limit.windowMs - now) };
}

/** Sends JOINs for the channels asked, no faster than the limit allows. */
export class JoinPacer {
  readonly #limit: JoinLimit;
  readonly #clock: Clock;
  readonly #signal: AbortSignal;
  readonly #send: (channel: string) => boolean;
  #waiting: string[] = [];
  #sentAt: number[] = [];
  #running = false;

  /**
   * `send` writes one JOIN and returns false once the connection is gone (the rest then waits
   * for the next one); `signal` ends a wait for the next free join (the chat service closing).
   */
  constructor(
    limit: JoinLimit,
    clock: Clock,
    signal: AbortSignal,
    send: (channel: string) => boolean,
  ) {
    this.#limit = limit;
    this.#clock = clock;
    this.#signal = signal;
    this.#send = send;
  }

  /** A new connection: joins `channels`, replacing whatever waited for the old one. */
  start(channels: readonly string[]): Promise<void> {
    this.#waiting = [...channels];
    return this.#run();
  }

  /** Adds a channel to join on the current connection. */
  add(channel: string): Promise<void> {
    if (!this.#waiting.includes(channel)) this.#waiting.push(channel);
    return this.#run();
  }

  /** Forgets a channel not joined yet; true if it was still waiting. */
  drop(channel: string): boolean {
    const before = this.#waiting.length;
    this.#waiting = this.#waiting.filter((waiting) => waiting !== channel);
    return this.#waiting.length < before;
  }

  /** Forgets everything waiting (the connection closed). */
  clear(): void {
    this.#waiting = [];
  }

  async #run(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    try {
      while (this.#waiting.length > 0 && !this.#signal.aborted) {
        const now = this.#clock.now();
        const allowance = joinAllowance(this.#sentAt, now, this.#limit);
        if (allowance.now === 0) {
          await this.#clock.sleep(allowance.waitMs, this.#signal);
          continue;
        }
        this.#sentAt = this.#sentAt.filter((at) => at > now - this.#limit.windowMs);
        for (const channel of this.#waiting.splice(0, allowance.now)) {
          if (!this.#send(channel)) return;
          this.#sentAt.push(now);
        }
      }
    } finally {
      this.#running = false;
    }
  }
}
