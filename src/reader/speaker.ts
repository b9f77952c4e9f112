/** Who the reader says a message is from, after the member's own settings. Pure. */
import type { MemberSettings } from '../store/index.ts';

/** Not read (the member opted out in this server), or read under this name (before cleaning). */
export type Speaker = { readonly read: false } | { readonly read: true; readonly name: string };

/** What the rule needs to know about a message. */
export interface SpeakerFacts {
  /** Server nickname, else display name, else username. */
  readonly authorName: string;
  /** Set for a Twitch chatter, who is no Discord member and has no member settings. */
  readonly twitchChannel?: string;
}

/**
 * Whether a member's message is read, and the name it is read under: the spoken name the
 * member or an admin set, else their nickname. The name still goes through the reader's
 * cleaning and screening (blocked words, mentions, length) like any nickname.
 */
export function speakerOf(message: SpeakerFacts, member: MemberSettings): Speaker {
  if (message.twitchChannel !== undefined) return { read: true, name: message.authorName };
  if (member.read === false) return { read: false };
  return { read: true, name: member.name ?? message.authorName };
}

/** True when the member's settings matter to a message: a Discord member's, not a Twitch chatter's. */
export function hasMemberSettings(message: SpeakerFacts): boolean {
  return message.twitchChannel === undefined;
}
