/** Which chat messages the reader reads, from the server's settings. Pure. */
import type { ReaderSettings } from '../store/index.ts';
import { visibleText } from './text.ts';

/** What the decision needs to know about a message and its author. */
export interface MessageFacts {
  readonly channelId: string;
  readonly authorId: string;
  /** Written by the bot itself. */
  readonly self: boolean;
  readonly bot: boolean;
  /** Posted through a webhook (chat bridges such as Twitch relays). */
  readonly webhook: boolean;
  readonly roleIds: readonly string[];
  /** The voice channel the author is in, if any. */
  readonly authorVoiceChannelId: string | undefined;
  readonly content: string;
  /** Sent as @silent (no notification: Discord's SUPPRESS_NOTIFICATIONS flag). */
  readonly silent?: boolean;
  /** When the author joined the server (ms), if the source knows it: the new-member rule. */
  readonly joinedAt?: number | undefined;
  /**
   * Read from this Twitch channel (a login), not a Discord channel: it must be one the server
   * reads (`twitchChannels`), as a Discord message's channel must be a read channel.
   */
  readonly twitchChannel?: string;
  /** Twitch badges of the chatter (`broadcaster`, `moderator`, `vip`, `subscriber`…); none on Discord. */
  readonly badges?: readonly string[];
  /**
   * Paid for (a Twitch redemption or cheer): read ahead of plain chat (see `PAID_RUN`), never
   * dropped as stale (up to `PAID_WAITING_MAX` waiting), and not held by `new-member-delay`.
   */
  readonly paid?: boolean;
  /**
   * A forward: another message carried without its author (Discord does not say who wrote it),
   * read only with `forwards` on, since the member filters can judge only the forwarder.
   */
  readonly forward?: boolean;
}

/** Read it; join the author's voice channel first, then read; or why it is not read. */
export type ReadDecision =
  | { readonly read: true; readonly join?: string }
  | {
      readonly read: false;
      readonly why:
        | 'not-a-read-channel'
        | 'silent'
        | 'badge'
        | 'own-message'
        | 'bot'
        | 'ignored-member'
        | 'ignored-role'
        | 'ignored-prefix'
        | 'not-in-voice'
        | 'not-listening'
        | 'new-member'
        | 'forward';
    };

/**
 * Decides whether a message is read, given where the bot is in voice (undefined: nowhere) and
 * the time (the new-member rule is checked only when `now` is given). The text chat of the
 * bot's voice channel counts as a read channel with `voice-chat` on; every other rule applies
 * to it alike.
 */
export function readDecision(
  message: MessageFacts,
  settings: ReaderSettings,
  botChannelId: string | undefined,
  now?: number,
): ReadDecision {
  const no = (why: Extract<ReadDecision, { read: false }>['why']): ReadDecision => ({
    read: false,
    why,
  });
  const twitch = message.twitchChannel;
  const readChannel =
    settings.channels.includes(message.channelId) ||
    (settings.voiceChat && botChannelId !== undefined && message.channelId === botChannelId);
  if (twitch === undefined ? !readChannel : !settings.twitchChannels.includes(twitch))
    return no('not-a-read-channel');
  if (message.silent === true && settings.silent === 'skip') return no('silent');
  const wanted = settings.twitchBadges;
  if (
    twitch !== undefined &&
    wanted.length > 0 &&
    !message.badges?.some((b) => wanted.some((w) => w === b))
  )
    return no('badge');
  if (message.self) return no('own-message');
  if (message.webhook ? settings.readBots === 'none' : message.bot && settings.readBots !== 'all')
    return no('bot');
  if (settings.ignoredMembers.includes(message.authorId)) return no('ignored-member');
  if (message.roleIds.some((role) => settings.ignoredRoles.includes(role)))
    return no('ignored-role');
  if (message.forward === true && !settings.forwards) return no('forward');
  const delay = settings.newMemberDelayMs;
  if (delay > 0 && now !== undefined && message.joinedAt !== undefined && message.paid !== true) {
    if (now - message.joinedAt < delay) return no('new-member');
  }
  const text = visibleText(message.content).trimStart();
  if (settings.ignorePrefixes.some((prefix) => text.startsWith(prefix)))
    return no('ignored-prefix');
  if (botChannelId === undefined) {
    return settings.autoJoin && message.authorVoiceChannelId !== undefined
      ? { read: true, join: message.authorVoiceChannelId }
      : no('not-in-voice');
  }
  // A Twitch chatter is in no Discord voice channel: the server chose to read that channel.
  if (
    settings.voiceMembersOnly &&
    twitch === undefined &&
    message.authorVoiceChannelId !== botChannelId
  )
    return no('not-listening');
  return { read: true };
}
