/**
 * Stored settings of a server's Twitch reading (`/config twitch`), and what its moderators set
 * from chat: the chatters muted and a pause. Kept in the server's record, so they last across
 * restarts and shards and go when the server is forgotten. Chatters' `!voice` choices have
 * records of their own (`chat-voices.ts`); `voices` here is where earlier versions kept them.
 */
import { z } from 'zod';

/**
 * What is read from a channel: `chat`, everything (paid messages first); `redeems`, only the
 * server's TTS reward's redemptions; `cheers`, only cheers of `minBits` or more; `redeems-cheers`, both.
 */
export const TWITCH_READ_MODES = ['chat', 'redeems', 'cheers', 'redeems-cheers'] as const;
/** One of {@link TWITCH_READ_MODES}. */
export type TwitchReadMode = (typeof TWITCH_READ_MODES)[number];

/** Bounds of the Twitch settings; `/config twitch` refuses values outside them. */
export const TWITCH_BOUNDS = {
  minBits: { min: 1, max: 1_000_000 },
  prefix: 10,
  /** Chosen voices an earlier version kept in the server's record, at most (read until moved). */
  voices: 2000,
  muted: 500,
} as const;

const twitchUserId = z.string().regex(/^\d{1,25}$/);
const login = z.string().regex(/^[a-z0-9_]{1,25}$/);

/** A server's Twitch reading and its chatters' choices; every field has its default. */
export const twitchSettingsSchema = z.object({
  read: z.enum(TWITCH_READ_MODES).default('chat'),
  /** The channel-points reward whose redemptions are read (`custom-reward-id`). */
  rewardId: z.string().min(1).max(64).optional(),
  /** Cheers of fewer bits are not read with `read: cheers` (nor put first with `chat`). */
  minBits: z
    .number()
    .int()
    .min(TWITCH_BOUNDS.minBits.min)
    .max(TWITCH_BOUNDS.minBits.max)
    .default(1),
  /** What starts a chat command: `!` makes `!tts skip` and `!voice Lily`. */
  prefix: z.string().trim().min(1).max(TWITCH_BOUNDS.prefix).default('!'),
  /** Moderators paused reading from chat (`!tts pause`) until `!tts resume`. */
  paused: z.boolean().default(false),
  /**
   * Each chatter's `!voice` choice as earlier versions kept it: Twitch user id → voice id. Moved
   * to records of their own (`KeyvChatVoices`) when the server's Twitch reading syncs; nothing
   * writes here any more.
   */
  voices: z
    .record(twitchUserId, z.string().min(1).max(100))
    .refine((voices) => Object.keys(voices).length <= TWITCH_BOUNDS.voices)
    .default({}),
  /** Logins moderators muted (`!tts mute`): not read in this server until unmuted. */
  muted: z.array(login).max(TWITCH_BOUNDS.muted).default([]),
});
/** A server's stored Twitch settings. */
export type TwitchSettings = z.infer<typeof twitchSettingsSchema>;

/** The Twitch settings with every default filled in. */
export function defaultTwitchSettings(): TwitchSettings {
  return twitchSettingsSchema.parse({});
}
