/** Stored settings of the chat reader (streamer mode) and the per-server dictionary. */
import { z } from 'zod';

/** Which bot-authored messages are read: none, relayed webhooks (chat bridges), or all bots. */
export const READ_BOTS = ['none', 'webhooks', 'all'] as const;
/** How Unicode and custom emoji are spoken. */
export const EMOJI_MODES = ['names', 'drop'] as const;
/** Whether @silent messages (sent without notifying anyone) are read or skipped. */
export const SILENT_MODES = ['read', 'skip'] as const;
/** Whether spoiler-marked text is skipped or read. */
export const SPOILER_MODES = ['skip', 'read'] as const;
/** What a message (or `/say` text) with a blocked word gets: not read at all, or read with a "beep". */
export const BLOCKED_MODES = ['skip', 'bleep'] as const;
/** The Twitch badges `/config reader twitch-badges` can keep (none kept: everyone is read). */
export const TWITCH_BADGES = ['broadcaster', 'moderator', 'vip', 'subscriber'] as const;
/**
 * Voices of chatters without their own `/myvoice`: `auto`, one chosen per chatter from the key's
 * voices; `default`, the server's default voice for all.
 */
export const VOICE_MODES = ['auto', 'default'] as const;
/**
 * Which voices Twitch chatters may pick with `!voice`: `automatic`, only those automatic voices
 * are given from (never a cloned voice: someone's own); `any`, every voice of the key.
 */
export const CHAT_VOICE_MODES = ['automatic', 'any'] as const;

/** Bounds of the reader's numeric settings; `/config reader` refuses values outside them. */
export const READER_BOUNDS = {
  maxLength: { min: 20, max: 1000 },
  maxAgeMs: { min: 5_000, max: 3_600_000 },
  channels: 50,
  /** Twitch channels one server reads (one shared connection; kept small per server). */
  twitchChannels: 3,
  ignored: 100,
  ignorePrefixes: 20,
  dictionary: 200,
  word: 100,
  replacement: 200,
  /** Same as `BLOCKLIST_LIMITS` of `src/speech/blocklist.ts` (the store stays below speech). */
  blockedWords: 500,
  blockedWordLength: 50,
  priorityRoles: 20,
  maxSpeed: { min: 1, max: 2 },
  newMemberDelayMs: { min: 0, max: 30 * 86_400_000 },
} as const;

/**
 * Default max-age: chat older than a minute is old news on a stream, and it bounds how far
 * behind a chat faster than speech is read (a message is read only if heard within it).
 */
export const DEFAULT_MAX_AGE_MS = 60_000;

const id = z.string().regex(/^\d{1,25}$/);

/** The reader's options for one server; every field has its default. */
export const readerSettingsSchema = z.object({
  /** Text channels (or voice channels' own chat) whose messages are read. */
  channels: z.array(id).max(READER_BOUNDS.channels).default([]),
  saidPrefix: z.boolean().default(true),
  readBots: z.enum(READ_BOTS).default('none'),
  ignorePrefixes: z
    .array(z.string().min(1).max(20))
    .max(READER_BOUNDS.ignorePrefixes)
    .default(['!']),
  ignoredMembers: z.array(id).max(READER_BOUNDS.ignored).default([]),
  ignoredRoles: z.array(id).max(READER_BOUNDS.ignored).default([]),
  voiceMembersOnly: z.boolean().default(false),
  /**
   * The text chat of the voice channel the bot is in is read like a read channel. Off unless
   * turned on: reading spends the server's API key, and a server that uses the bot for `/say`
   * alone never asked for its call's chat to be read.
   */
  voiceChat: z.boolean().default(false),
  /** @silent messages: their author chose not to notify anyone, so by default they are not read. */
  silent: z.enum(SILENT_MODES).default('skip'),
  autoJoin: z.boolean().default(false),
  maxLength: z
    .number()
    .int()
    .min(READER_BOUNDS.maxLength.min)
    .max(READER_BOUNDS.maxLength.max)
    .default(300),
  maxAgeMs: z
    .number()
    .int()
    .min(READER_BOUNDS.maxAgeMs.min)
    .max(READER_BOUNDS.maxAgeMs.max)
    .default(DEFAULT_MAX_AGE_MS),
  emoji: z.enum(EMOJI_MODES).default('names'),
  spoilers: z.enum(SPOILER_MODES).default('skip'),
  /** A message with a blocked word: not read (`skip`), or read with a "beep" in its place. */
  blocked: z.enum(BLOCKED_MODES).default('skip'),
  /** Members with one of these roles are read first (the front of the chat backlog). */
  priorityRoles: z.array(id).max(READER_BOUNDS.priorityRoles).default([]),
  /** The largest factor a busy chat speeds speech up by; 1 turns speeding up off. */
  maxSpeed: z.number().min(READER_BOUNDS.maxSpeed.min).max(READER_BOUNDS.maxSpeed.max).default(1.5),
  /** Members who joined the server less than this ago are not read (raids); 0 is off. */
  newMemberDelayMs: z
    .number()
    .int()
    .min(READER_BOUNDS.newMemberDelayMs.min)
    .max(READER_BOUNDS.newMemberDelayMs.max)
    .default(0),
  /** Twitch channels (logins) whose chat is read like a read channel's. */
  twitchChannels: z
    .array(z.string().regex(/^[a-z0-9_]{1,25}$/))
    .max(READER_BOUNDS.twitchChannels)
    .default([]),
  /** Twitch chatters read: only those with one of these badges; empty, everyone. */
  twitchBadges: z.array(z.enum(TWITCH_BADGES)).default([]),
  /**
   * `default` for records stored before automatic voices existed; a server without a record
   * starts with `auto` (see `NEW_GUILD` in settings.ts).
   */
  voices: z.enum(VOICE_MODES).default('default'),
  /**
   * Forwarded messages are read. Off unless turned on: a forward carries no author, so an
   * ignored member's message forwarded by someone else would be read under the forwarder's name.
   */
  forwards: z.boolean().default(false),
  /** Which voices Twitch chatters may pick with `!voice` (see {@link CHAT_VOICE_MODES}). */
  chatVoices: z.enum(CHAT_VOICE_MODES).default('automatic'),
});
export type ReaderSettings = z.infer<typeof readerSettingsSchema>;

/** One dictionary entry: `word` (matched whole-word, any case) is spoken as `replacement`. */
export const dictionaryEntrySchema = z.object({
  word: z.string().trim().min(1).max(READER_BOUNDS.word),
  replacement: z.string().trim().max(READER_BOUNDS.replacement),
});
export type DictionaryEntry = z.infer<typeof dictionaryEntrySchema>;

/** A server's dictionary: at most one entry per word (compared without case). */
export const dictionarySchema = z.array(dictionaryEntrySchema).max(READER_BOUNDS.dictionary);

/** A server's blocked words (`/config block-word`): never read aloud, in chat or `/say`. */
export const blockedWordsSchema = z
  .array(z.string().trim().min(1).max(READER_BOUNDS.blockedWordLength))
  .max(READER_BOUNDS.blockedWords);

/** The reader's settings with every default filled in. */
export function defaultReaderSettings(): ReaderSettings {
  return readerSettingsSchema.parse({});
}
