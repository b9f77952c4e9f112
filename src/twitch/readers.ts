/**
 * Which servers read which Twitch channels: one JOIN however many servers read a channel, one
 * PART when the last stops. Pure bookkeeping; the chat service sends what it answers.
 */

/** Most Twitch channels one server may read; the caller (the `/config` command) enforces it. */
export const MAX_TWITCH_CHANNELS_PER_SERVER = 3;

/** A Twitch login as the chat names it (lower case, no `#`), or undefined when it cannot be one. */
export function twitchLogin(text: string): string | undefined {
  const login = text.trim().replace(/^#/, '').toLowerCase();
  return /^[a-z0-9_]{1,25}$/.test(login) ? login : undefined;
}

/** The servers reading each channel. */
export class ChannelReaders {
  readonly #byChannel = new Map<string, Set<string>>();

  /** `serverId` reads `channel`; true when it is the channel's first reader (join it). */
  add(serverId: string, channel: string): boolean {
    const readers = this.#byChannel.get(channel);
    if (readers !== undefined) {
      readers.add(serverId);
      return false;
    }
    this.#byChannel.set(channel, new Set([serverId]));
    return true;
  }

  /** `serverId` stops reading `channel`; true when nobody reads it any more (part it). */
  remove(serverId: string, channel: string): boolean {
    const readers = this.#byChannel.get(channel);
    if (readers === undefined || !readers.delete(serverId)) return false;
    if (readers.size > 0) return false;
    this.#byChannel.delete(channel);
    return true;
  }

  /** The servers reading `channel`, in the order they started. */
  readersOf(channel: string): readonly string[] {
    return [...(this.#byChannel.get(channel) ?? [])];
  }

  /** The channels `serverId` reads. */
  channelsOf(serverId: string): readonly string[] {
    return [...this.#byChannel].filter(([, readers]) => readers.has(serverId)).map(([c]) => c);
  }

  /** Every channel someone reads. */
  channels(): readonly string[] {
    return [...this.#byChannel.keys()];
  }
}
