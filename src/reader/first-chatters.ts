/**
 * When each first-time Twitch chatter was first seen. Twitch gives no join time, but it tags a
 * chatter's first message ever in a channel (`first-msg`): that moment stands in for a Discord
 * member's join, so `new-member-delay` holds a raid's first-time chatters the same way, for
 * their first message and the ones after it, until the delay has passed. Chatters seen
 * before the bot started are not known as new (Twitch tags only the first message). Bounded:
 * the oldest entries go first, and a chatter forgotten that way is read as any other. Pure.
 */

/** How many first-time chatters are remembered (a busy raid is a few thousand). */
export const FIRST_CHATTERS_KEPT = 10_000;

export class FirstChatters {
  readonly #firstAt = new Map<string, number>();
  readonly #capacity: number;

  constructor(capacity = FIRST_CHATTERS_KEPT) {
    this.#capacity = capacity;
  }

  /**
   * The time `userId` is taken to have joined `channel`: when their first-ever message was
   * seen (`first` is that message's tag), or undefined when they were never seen as new.
   */
  joinedAt(channel: string, userId: string, first: boolean, now: number): number | undefined {
    const key = `${channel}|${userId}`;
    const known = this.#firstAt.get(key);
    if (known !== undefined || !first) return known;
    if (this.#firstAt.size >= this.#capacity) {
      const [oldest] = this.#firstAt.keys();
      if (oldest !== undefined) this.#firstAt.delete(oldest);
    }
    this.#firstAt.set(key, now);
    return now;
  }

  /** How many chatters are remembered. */
  get size(): number {
    return this.#firstAt.size;
  }
}
