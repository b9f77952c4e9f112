/**
 * Twitch chat lines as plain events for the reader: a message, a deleted message, a cleared
 * chat. Pure: tags in, objects out; nothing here knows the connection.
 */
import { type IrcMessage, nickOf } from './irc.ts';

/** An emote in a message: its Twitch id, the word it replaces and where (code points, inclusive). */
export interface TwitchEmote {
  readonly id: string;
  readonly word: string;
  readonly start: number;
  readonly end: number;
}

/** A chat message (PRIVMSG). */
export interface TwitchMessage {
  readonly kind: 'message';
  /** The channel's login, lower case, without `#`. */
  readonly channel: string;
  readonly roomId: string | undefined;
  /** Twitch's message id: what a CLEARMSG names. */
  readonly id: string;
  readonly userId: string;
  readonly login: string;
  /** As the chatter styled it (may be in another script than the login); the login when absent. */
  readonly displayName: string;
  /** Without the `/me` wrapper. */
  readonly text: string;
  /** Sent with `/me`. */
  readonly isAction: boolean;
  /** Badge names, without versions: `broadcaster`, `moderator`, `vip`, `subscriber`… */
  readonly badges: ReadonlySet<string>;
  /** In order of position in `text`. */
  readonly emotes: readonly TwitchEmote[];
  /** The chatter's first message in this channel. */
  readonly firstMessage: boolean;
  /** When Twitch received it (`tmi-sent-ts`), else when we did; ms since the epoch. */
  readonly sentAt: number;
  /** A channel-points redemption's text: the reward's id (`custom-reward-id`, a UUID). */
  readonly rewardId?: string;
  /** A cheer: the bits it carried (`bits`), its cheermote words still in `text`. */
  readonly bits?: number;
}

/** One message was deleted by a moderator (CLEARMSG). */
export interface TwitchDeleted {
  readonly kind: 'deleted';
  readonly channel: string;
  readonly messageId: string;
  /** The author's login, when Twitch says. */
  readonly login: string | undefined;
}

/** A chatter's messages were purged (timeout or ban), or the whole chat was cleared (CLEARCHAT). */
export type TwitchCleared =
  | {
      readonly kind: 'cleared';
      readonly scope: 'user';
      readonly channel: string;
      readonly userId: string;
      readonly login: string;
    }
  | { readonly kind: 'cleared'; readonly scope: 'channel'; readonly channel: string };

/** Everything the chat source tells the reader about a channel's messages. */
export type TwitchChatEvent = TwitchMessage | TwitchDeleted | TwitchCleared;

const ACTION_START = '\u0001ACTION ';
const ACTION_END = '\u0001';

/** The text of a `/me` message without its CTCP wrapper; undefined for a plain message. */
function actionText(raw: string): string | undefined {
  if (!raw.startsWith(ACTION_START)) return undefined;
  const inner = raw.slice(ACTION_START.length);
  return inner.endsWith(ACTION_END) ? inner.slice(0, -ACTION_END.length) : inner;
}

/** `#Name` → `name`. */
function channelOf(message: IrcMessage): string | undefined {
  const target = message.params[0];
  return target?.startsWith('#') ? target.slice(1).toLowerCase() : undefined;
}

/** `broadcaster/1,subscriber/12` → {broadcaster, subscriber}. */
export function parseBadges(raw: string | undefined): ReadonlySet<string> {
  const names = (raw ?? '').split(',').map((badge) => badge.split('/')[0] ?? '');
  return new Set(names.filter((name) => name !== ''));
}

/** `25:0-4,12-16/1902:6-10` over `text` → the emotes with their words; bad ranges are skipped. */
export function parseEmotes(raw: string | undefined, text: string): readonly TwitchEmote[] {
  const points = Array.from(text);
  const emotes: TwitchEmote[] = [];
  for (const group of (raw ?? '').split('/')) {
    const [id, ranges] = group.split(':');
    if (id === undefined || id === '' || ranges === undefined) continue;
    for (const range of ranges.split(',')) {
      const match = /^(\d+)-(\d+)$/.exec(range);
      const start = Number(match?.[1]);
      const end = Number(match?.[2]);
      if (match === null || start > end || end >= points.length) continue;
      emotes.push({ id, word: points.slice(start, end + 1).join(''), start, end });
    }
  }
  return emotes.sort((a, b) => a.start - b.start);
}

function privmsg(
  message: IrcMessage,
  channel: string,
  receivedAt: number,
): TwitchMessage | undefined {
  const { tags } = message;
  const id = tags.get('id');
  const userId = tags.get('user-id');
  const login = nickOf(message.prefix) ?? tags.get('login');
  const raw = message.params[1];
  if (!id || !userId || !login || raw === undefined) return undefined;
  const action = actionText(raw);
  const text = action ?? raw;
  const sentAt = Number(tags.get('tmi-sent-ts'));
  const rewardId = tags.get('custom-reward-id');
  const bits = Number(tags.get('bits'));
  return {
    kind: 'message',
    channel,
    roomId: tags.get('room-id') || undefined,
    id,
    userId,
    login,
    displayName: tags.get('display-name') || login,
    text,
    isAction: action !== undefined,
    badges: parseBadges(tags.get('badges')),
    emotes: parseEmotes(tags.get('emotes'), text),
    firstMessage: tags.get('first-msg') === '1',
    sentAt: Number.isFinite(sentAt) && sentAt > 0 ? sentAt : receivedAt,
    ...(rewardId ? { rewardId } : {}),
    ...(Number.isSafeInteger(bits) && bits > 0 ? { bits } : {}),
  };
}

/** The reader's event for a line, or undefined for lines it has no use for (or that lack ids). */
export function chatEventOf(message: IrcMessage, receivedAt: number): TwitchChatEvent | undefined {
  const channel = channelOf(message);
  if (channel === undefined) return undefined;
  switch (message.command) {
    case 'PRIVMSG':
      return privmsg(message, channel, receivedAt);
    case 'CLEARMSG': {
      const messageId = message.tags.get('target-msg-id');
      if (!messageId) return undefined;
      return { kind: 'deleted', channel, messageId, login: message.tags.get('login') || undefined };
    }
    case 'CLEARCHAT': {
      const login = message.params[1];
      if (login === undefined || login === '')
        return { kind: 'cleared', scope: 'channel', channel };
      const userId = message.tags.get('target-user-id');
      if (!userId) return undefined;
      return { kind: 'cleared', scope: 'user', channel, userId, login: login.toLowerCase() };
    }
    default:
      return undefined;
  }
}
