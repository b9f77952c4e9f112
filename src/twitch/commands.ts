/**
 * What Twitch chat may tell the bot: a chatter's `!voice <name>`, and the broadcaster's and
 * moderators' `!tts skip|mute|unmute|pause|resume`. Nothing else in chat controls it, and the
 * bot never answers in chat. Pure.
 */
import { twitchLogin } from './readers.ts';

/** A command read from a chat message. */
export type TwitchChatCommand =
  /** A chatter picks their voice by name; `name` undefined goes back to the automatic one. */
  | { readonly kind: 'voice'; readonly name: string | undefined }
  | { readonly kind: 'skip' | 'pause' | 'resume' }
  | { readonly kind: 'mute' | 'unmute'; readonly login: string }
  /** `!tts` with something it does not know: not read, and nothing done. */
  | { readonly kind: 'unknown' };

/** The command's prefix by default: `!tts …`, `!voice …`. */
export const DEFAULT_COMMAND_PREFIX = '!';

/** The badges that control the reader from chat. */
export const CONTROL_BADGES: readonly string[] = ['broadcaster', 'moderator'];

/** Whether a chatter with `badges` may use `!tts`: the broadcaster and the moderators. */
export function mayControl(badges: Iterable<string>): boolean {
  for (const badge of badges) if (CONTROL_BADGES.includes(badge)) return true;
  return false;
}

/**
 * The command in `text` (`<prefix>tts …` or `<prefix>voice …`, the word in any case), or
 * undefined for a message that is not one (it is read as chat).
 */
export function chatCommandOf(text: string, prefix: string): TwitchChatCommand | undefined {
  const trimmed = text.trim();
  if (prefix === '' || !trimmed.startsWith(prefix)) return undefined;
  const [word = '', ...rest] = trimmed.slice(prefix.length).split(/\s+/);
  const name = word.toLowerCase();
  if (name === 'voice') {
    const wanted = rest.join(' ').trim();
    return { kind: 'voice', name: wanted === '' ? undefined : wanted.slice(0, 100) };
  }
  if (name !== 'tts') return undefined;
  const [action = '', target] = rest;
  const verb = action.toLowerCase();
  if (verb === 'skip' || verb === 'pause' || verb === 'resume')
    return rest.length === 1 ? { kind: verb } : { kind: 'unknown' };
  if (verb === 'mute' || verb === 'unmute') {
    const login = rest.length === 2 ? twitchLogin((target ?? '').replace(/^@/, '')) : undefined;
    return login === undefined ? { kind: 'unknown' } : { kind: verb, login };
  }
  return { kind: 'unknown' };
}
