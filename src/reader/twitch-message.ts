/**
 * A Twitch chat message as the reader's plain input, for one server: ids namespaced
 * (`twitch:<id>`) so they never meet Discord's, emotes in the form the cleanup already speaks
 * or drops by the `emoji` setting. Pure.
 */
import type { MentionNames } from '../speech/index.ts';
import { type TwitchMessage, withoutCheermotes } from '../twitch/index.ts';
import type { IncomingMessage } from './types.ts';

/** The prefix of every Twitch id the reader sees: messages, chatters, channels. */
export const TWITCH_ID_PREFIX = 'twitch:';

/** The reader's id of a Twitch message (what a CLEARMSG withdraws). */
export const twitchMessageId = (id: string): string => `${TWITCH_ID_PREFIX}${id}`;
/** The reader's id of a Twitch chatter: their voice, their share, their place in turns. */
export const twitchAuthorId = (userId: string): string => `${TWITCH_ID_PREFIX}${userId}`;
/** The reader's id of a Twitch channel: where its messages come from. */
export const twitchChannelId = (login: string): string => `${TWITCH_ID_PREFIX}${login}`;

/**
 * Chat bots that answer commands and post timers in Twitch channels: counted as bots, so
 * `read-bots` decides (by default they are not read). They are often moderators: without this
 * they would be read first, as priority chatters.
 */
export const TWITCH_CHAT_BOTS: ReadonlySet<string> = new Set([
  'nightbot',
  'streamelements',
  'streamlabs',
  'moobot',
  'fossabot',
  'wizebot',
  'deepbot',
  'phantombot',
  'botisimo',
  'coebot',
  'sery_bot',
  'soundalerts',
  'kofistreambot',
  'streamstickers',
  'blerp',
  'pokemoncommunitygame',
  'commanderroot',
]);

/** Twitch has no mentions of Discord members, roles or channels: nothing is named. */
const NO_NAMES: MentionNames = {
  user: () => undefined,
  role: () => undefined,
  channel: () => undefined,
};

/** Twitch's smiley emotes, as the emoji the cleanup names ("slightly smiling") or drops. */
const SMILEYS: Readonly<Record<string, string>> = {
  ':)': '🙂',
  ':-)': '🙂',
  ':(': '😢',
  ':-(': '😢',
  ':D': '😀',
  ':-D': '😀',
  ';)': '😉',
  ';-)': '😉',
  ':P': '😛',
  ';P': '😛',
  ':O': '😱',
  ':o': '😱',
  '<3': '❤️',
  'B)': '😎',
  'R)': '😎',
  ':/': '😐',
  ':|': '😐',
  o_O: '😳',
  O_o: '😳',
  '>(': '😠',
};

/**
 * The text with each emote as the cleanup knows emotes: a word emote (`Kappa`) as a custom
 * emoji (`<:Kappa:0>`, spoken as its name or dropped, like Discord's), a smiley as its emoji.
 */
export function withEmotes(message: Pick<TwitchMessage, 'text' | 'emotes'>): string {
  if (message.emotes.length === 0) return message.text;
  const points = Array.from(message.text);
  let out = '';
  let at = 0;
  for (const emote of message.emotes) {
    if (emote.start < at) continue;
    out += points.slice(at, emote.start).join('');
    out += /^\w{1,64}$/.test(emote.word)
      ? `<:${emote.word}:0>`
      : (SMILEYS[emote.word] ?? emote.word);
    at = emote.end + 1;
  }
  return out + points.slice(at).join('');
}

/** How a server reads a message, as its Twitch settings decided (see `twitchTake`). */
export interface TwitchReading {
  /** The text the reader's filters see: a cheer's without its cheermotes. */
  readonly text: string;
  /**
   * A redemption of the server's reward, or a cheer of its `min-bits`: read first (see
   * `PAID_RUN`), never stale, up to `PAID_WAITING_MAX` waiting.
   */
  readonly paid: boolean;
  /** A cheer's bits: read as "RonniTV cheered 500 bits: …" (see `IncomingMessage.cheer`). */
  readonly bits?: number;
  /** The voice the chatter chose with `!voice`. */
  readonly voiceId?: string;
}

/**
 * The reader's message for `guildId` (a server reading the message's channel). `joinedAt`:
 * when a first-time chatter was first seen (see `FirstChatters`), for `new-member-delay`.
 * `reading`: how the server's Twitch settings read it (plain chat when absent); a cheer is read
 * as an action of its chatter, its words said by the reader in the line's language.
 */
export function twitchIncoming(
  message: TwitchMessage,
  guildId: string,
  joinedAt?: number,
  reading?: TwitchReading,
): IncomingMessage {
  const bits = reading?.bits;
  const spoken = withEmotes(message);
  return {
    id: twitchMessageId(message.id),
    guildId,
    channelId: twitchChannelId(message.channel),
    authorId: twitchAuthorId(message.userId),
    authorName: message.displayName,
    self: false,
    bot: TWITCH_CHAT_BOTS.has(message.login.toLowerCase()),
    webhook: false,
    roleIds: [],
    authorVoiceChannelId: undefined,
    content: reading?.text ?? message.text,
    twitchChannel: message.channel,
    badges: [...message.badges],
    ...(joinedAt === undefined ? {} : { joinedAt }),
    ...(message.isAction || bits !== undefined ? { action: true } : {}),
    ...(bits === undefined ? {} : { cheer: bits }),
    ...(reading?.paid === true ? { paid: true } : {}),
    ...(reading?.voiceId === undefined ? {} : { voiceId: reading.voiceId }),
    message: {
      content: reading === undefined ? spoken : withoutCheermotes(spoken, message.bits),
      attachments: [],
      stickers: [],
    },
    names: NO_NAMES,
  };
}
