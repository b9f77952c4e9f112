/**
 * Servers waiting to learn their TTS reward (`/config twitch reward action:learn`) from the next
 * redemption with text, and which login was last seen with which Twitch user id (so a mute by
 * login can withdraw what that chatter already has waiting). In memory: a learn is a few
 * minutes on the shard that serves the server.
 */
import type { Clock } from '../tts/index.ts';

/** A reward learned by `/config twitch reward learn`: the redemption that taught it. */
export interface LearnedReward {
  readonly rewardId: string;
  readonly channel: string;
  readonly displayName: string;
}

/** The learns under way, one per server. */
export class RewardLearning {
  readonly #clock: Clock;
  readonly #waiting = new Map<string, (learned: LearnedReward | undefined) => void>();

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Whether `guildId` waits for a redemption. */
  has(guildId: string): boolean {
    return this.#waiting.has(guildId);
  }

  /**
   * Waits for {@link taught}; undefined after `withinMs`, or when another learn of the server
   * replaces this one.
   */
  wait(guildId: string, withinMs: number): Promise<LearnedReward | undefined> {
    this.#waiting.get(guildId)?.(undefined);
    const { promise, resolve } = Promise.withResolvers<LearnedReward | undefined>();
    const done = new AbortController();
    const finish = (learned: LearnedReward | undefined) => {
      if (this.#waiting.get(guildId) === finish) this.#waiting.delete(guildId);
      done.abort();
      resolve(learned);
    };
    this.#waiting.set(guildId, finish);
    this.#clock.sleep(withinMs, done.signal).then(
      () => finish(undefined),
      // Aborted: the learn already ended.
      () => undefined,
    );
    return promise;
  }

  /** The server learned its reward (stored by the caller): its wait ends with it. */
  taught(guildId: string, learned: LearnedReward): void {
    this.#waiting.get(guildId)?.(learned);
  }
}

/** The Twitch user id last seen with each login of a channel: the newest `capacity` kept. */
export class RecentLogins {
  readonly #capacity: number;
  readonly #ids = new Map<string, string>();

  constructor(capacity: number) {
    this.#capacity = Math.max(1, capacity);
  }

  /** `login` wrote in `channel` as `userId`. */
  seen(channel: string, login: string, userId: string): void {
    const key = `${channel} ${login.toLowerCase()}`;
    this.#ids.delete(key);
    this.#ids.set(key, userId);
    if (this.#ids.size > this.#capacity) {
      const [oldest] = this.#ids.keys();
      if (oldest !== undefined) this.#ids.delete(oldest);
    }
  }

  /** The user id of `login` in `channel`, if seen lately. */
  userId(channel: string, login: string): string | undefined {
    return this.#ids.get(`${channel} ${login.toLowerCase()}`);
  }

  /** Forgets a channel no server reads any more. */
  forgetChannel(channel: string): void {
    for (const key of this.#ids.keys()) if (key.startsWith(`${channel} `)) this.#ids.delete(key);
  }
}
