/**
 * When each first-time Twitch chatter was first seen. Twitch gives no join time, but it tags a
 * chatter's first message ever in a channel (`first-msg`): that moment stands in for a Discord
 * member's join, so `new-member-delay` holds a raid's first-time chatters the same way, for
 * their first message and the ones after it, until the delay has passed. Chatters seen
 * before the bot started are not known as new (Twitch tags only the first message). Bounded
 * per channel: the oldest entries of that channel go first (a raid on one channel never makes
 * another channel's newcomers look like regulars), and a chatter forgotten that way is read as
 * any other; a channel nobody reads any more is dropped whole. Pure.
 */

/** How many first-time chatters are remembered per channel (a busy raid is a few thousand). */
export const FIRST_CHATTERS_KEPT = 10_000;

/** First-time chatters per Twitch channel, each channel bounded. */
export class FirstChatters {
  readonly #channels = new Map<string, Map<string, number>>();
  readonly #capacity: number;

  constructor(capacityPerChannel = FIRST_CHATTERS_KEPT) {
    this.#capacity = capacityPerChannel;
  }

  /**
   * The time `userId` is taken to have joined `channel`: when their first-ever message was
   * seen (`first` is that message's tag), or undefined when they were never seen as new.
   */
  joinedAt(channel: string, userId: string, first: boolean, now: number): number | undefined {
    const known = this.#channels.get(channel)?.get(userId);
    if (known !== undefined || !first) return known;
    let chatters = this.#channels.get(channel);
    if (chatters === undefined) {
      chatters = new Map();
      this.#channels.set(channel, chatters);
    }
    if (chatters.size >= this.#capacity) {
      const [oldest] = chatters.keys();
      if (oldest !== undefined) chatters.delete(oldest);
    }
    chatters.set(userId, now);
    return now;
  }

  /** Drops what is remembered of `channel` (no server reads it any more). */
  forgetChannel(channel: string): void {
    this.#channels.delete(channel);
  }

  /** How many chatters are remembered, over all channels. */
  get size(): number {
    let size = 0;
    for (const chatters of this.#channels.values()) size += chatters.size;
    return size;
  }
}
