/**
 * What one server does with one Twitch chat message, from its Twitch settings: run a chat
 * command, read it (paid or not), or leave it. Pure: the source applies the answer.
 */
import type { TwitchSettings } from '../store/index.ts';
import {
  chatCommandOf,
  mayControl,
  type TwitchChatCommand,
  type TwitchMessage,
  withoutCheermotes,
} from '../twitch/index.ts';

/** Why a message is not read, besides the reader's own rules. */
export type TwitchSkip =
  /** Its chatter was muted by a moderator (`!tts mute`). */
  | 'muted'
  /** Reading is paused from chat (`!tts pause`). */
  | 'paused'
  /** The read mode does not take it (only redemptions, only cheers). */
  | 'mode'
  /** A `!tts` command from someone who is neither the broadcaster nor a moderator. */
  | 'not-allowed';

/** The answer for one message in one server. */
export type TwitchTake =
  | { readonly kind: 'command'; readonly command: TwitchChatCommand }
  | {
      readonly kind: 'read';
      /** What is read: a cheer's text without its cheermotes. */
      readonly text: string;
      /** Paid for: the server's TTS reward's redemption, or a cheer of `minBits` or more. */
      readonly paid: boolean;
      /** A cheer's bits, said before its text ("cheered 500 bits: …"). */
      readonly bits?: number;
    }
  | { readonly kind: 'skip'; readonly why: TwitchSkip };

/** The message as the decision needs it. */
export type TwitchFacts = Pick<
  TwitchMessage,
  'channel' | 'text' | 'login' | 'badges' | 'rewardId' | 'bits'
>;

/**
 * Whether the chatter is the channel's broadcaster (its login is the channel's, or the badge
 * says so): never muted, so a moderator cannot silence the streamer on their own stream.
 */
export function isBroadcaster(message: Pick<TwitchFacts, 'channel' | 'login' | 'badges'>): boolean {
  for (const badge of message.badges) if (badge === 'broadcaster') return true;
  return message.login.toLowerCase() === message.channel.toLowerCase();
}

/**
 * Decides in this order: a `!tts` command of the broadcaster or a moderator is run whoever is
 * muted (a muted moderator can still `!tts resume`, the broadcaster always can); a muted chatter
 * (never the broadcaster) is neither read nor obeyed; any other command is run (`!voice` for
 * everyone, `!tts` refused) and never read; while paused nothing is read; then the read mode:
 * `chat` reads everything, `redeems` only the reward's redemptions, `cheers` only cheers of
 * `minBits` or more, `redeems-cheers` both.
 */
export function twitchTake(message: TwitchFacts, settings: TwitchSettings): TwitchTake {
  const command = chatCommandOf(message.text, settings.prefix);
  const controls = mayControl(message.badges) || isBroadcaster(message);
  if (command !== undefined && command.kind !== 'voice' && controls)
    return { kind: 'command', command };
  if (!isBroadcaster(message) && settings.muted.includes(message.login.toLowerCase()))
    return { kind: 'skip', why: 'muted' };
  if (command !== undefined) {
    if (command.kind !== 'voice') return { kind: 'skip', why: 'not-allowed' };
    return { kind: 'command', command };
  }
  if (settings.paused) return { kind: 'skip', why: 'paused' };
  const redeem = message.rewardId !== undefined && message.rewardId === settings.rewardId;
  const cheer = message.bits !== undefined && message.bits >= settings.minBits;
  const wanted =
    settings.read === 'chat' ||
    (redeem && settings.read !== 'cheers') ||
    (cheer && settings.read !== 'redeems');
  if (!wanted) return { kind: 'skip', why: 'mode' };
  const text = withoutCheermotes(message.text, message.bits);
  // A cheer under min-bits in `chat` is read as plain chat, its cheermotes still left out.
  const bits = cheer && !redeem ? message.bits : undefined;
  return { kind: 'read', text, paid: redeem || cheer, ...(bits === undefined ? {} : { bits }) };
}

/** A Twitch user id as Twitch gives it (digits): the only keys of the chosen voices. */
const TWITCH_USER_ID = /^\d{1,25}$/;

/**
 * The voice chatter `userId` chose with `!voice` as earlier versions kept it, in the server's
 * record (now each choice has its own, see `KeyvChatVoices`): read until the server's choices
 * are moved. Own keys only: an id such as `constructor` finds nothing.
 */
export function chosenVoice(settings: TwitchSettings, userId: string): string | undefined {
  if (!TWITCH_USER_ID.test(userId)) return undefined;
  return Object.hasOwn(settings.voices, userId) ? settings.voices[userId] : undefined;
}

/**
 * The Twitch settings after a moderator's chat command in `channel`; undefined when nothing
 * is stored (`!tts skip`, `!voice`, which is kept apart, an unknown command, a full list, or
 * a mute of the channel's broadcaster, which is refused).
 */
export function afterCommand(
  settings: TwitchSettings,
  command: TwitchChatCommand,
  channel: string,
  bounds: { readonly muted: number },
): TwitchSettings | undefined {
  switch (command.kind) {
    case 'mute':
      if (command.login === channel.toLowerCase()) return undefined;
      if (settings.muted.includes(command.login) || settings.muted.length >= bounds.muted)
        return undefined;
      return { ...settings, muted: [...settings.muted, command.login] };
    case 'unmute':
      if (!settings.muted.includes(command.login)) return undefined;
      return { ...settings, muted: settings.muted.filter((login) => login !== command.login) };
    case 'pause':
    case 'resume':
      if (settings.paused === (command.kind === 'pause')) return undefined;
      return { ...settings, paused: command.kind === 'pause' };
    default:
      return undefined;
  }
}
