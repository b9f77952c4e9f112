import type Keyv from 'keyv';
import { z } from 'zod';
import { MODELS } from '../tts/types.ts';
import { blockedWordsSchema, dictionarySchema, readerSettingsSchema } from './reader-settings.ts';

const voiceId = z.string().trim().min(1).max(100);

/** Server-wide defaults for `/say`. */
export const guildDefaultsSchema = z.object({
  voiceId: voiceId.optional(),
  model: z.enum(MODELS).optional(),
  speed: z.number().min(0.5).max(2).optional(),
});
export type GuildDefaults = z.infer<typeof guildDefaultsSchema>;

/** Per-member limits a server set (`/config limits`). */
export const guildLimitsSchema = z.object({
  /** Generations per member per UTC day; 0 turns the share off; absent: the default share. */
  memberDaily: z.number().int().min(0).max(1_000_000).optional(),
  /**
   * Chat generations per author per UTC day (the chat reader); 0 turns it off; absent: the
   * same share as `memberDaily`'s.
   */
  chatDaily: z.number().int().min(0).max(1_000_000).optional(),
});
export type GuildLimits = z.infer<typeof guildLimitsSchema>;

const guildSchema = z.object({
  /** The API key, encrypted (see secrets.ts); never stored in clear. */
  sealedApiKey: z.string().optional(),
  defaults: guildDefaultsSchema.default({}),
  limits: guildLimitsSchema.default({}),
  /** The chat reader (streamer mode); `prefault` so stored records without it get every default. */
  reader: readerSettingsSchema.prefault({}),
  /** Words spoken differently, applied to chat messages before speaking. */
  dictionary: dictionarySchema.default([]),
  /** Words never read aloud (`/config block-word`), in chat and `/say`. */
  blockedWords: blockedWordsSchema.default([]),
});
export type GuildSettings = z.infer<typeof guildSchema>;
/** Guild settings as written: parts with defaults may be left out. */
export type GuildSettingsInput = z.input<typeof guildSchema>;

/**
 * What a server without a stored record starts from. A record is written by the first change
 * (its key, any setting), so a server that ever used the bot has one: servers from before
 * automatic voices keep `default`, new ones get `auto`.
 */
const NEW_GUILD: GuildSettingsInput = { reader: { voices: 'auto' } };

const userSchema = z.object({ voiceId: voiceId.optional() });
export type UserSettings = z.infer<typeof userSchema>;

/**
 * Where guild and user settings live. The only way the bot reads or
 * writes them; a Redis-backed store can replace this one for sharding.
 */
export interface SettingsStore {
  guild(guildId: string): Promise<GuildSettings>;
  setGuild(guildId: string, settings: GuildSettingsInput): Promise<void>;
  /**
   * Reads, changes and writes a server's settings under a per-server lock, so two changes at
   * once never lose one another; resolves with what was written.
   */
  updateGuild(
    guildId: string,
    change: (settings: GuildSettings) => GuildSettingsInput,
  ): Promise<GuildSettings>;
  /**
   * Deletes the server's record (its sealed key, defaults, limits, reader and dictionary) under
   * the same lock; resolves with what was stored, or undefined when there was no record.
   */
  deleteGuild(guildId: string): Promise<GuildSettings | undefined>;
  user(userId: string): Promise<UserSettings>;
  setUser(userId: string, settings: UserSettings): Promise<void>;
  /** The id of every server with stored settings (for start-up migrations; reads the whole store). */
  guildIds(): AsyncIterable<string>;
}

/** Settings in keyv, validated on the way in and out. */
export class KeyvSettingsStore implements SettingsStore {
  readonly #keyv: Keyv;
  /** The last update of each server still running, so the next one waits for it. */
  readonly #updates = new Map<string, Promise<unknown>>();

  constructor(keyv: Keyv) {
    this.#keyv = keyv;
  }

  async guild(guildId: string): Promise<GuildSettings> {
    return guildSchema.parse((await this.#keyv.get(`guild:${guildId}`)) ?? NEW_GUILD);
  }

  async setGuild(guildId: string, settings: GuildSettingsInput): Promise<void> {
    await this.#keyv.set(`guild:${guildId}`, guildSchema.parse(settings));
  }

  updateGuild(
    guildId: string,
    change: (settings: GuildSettings) => GuildSettingsInput,
  ): Promise<GuildSettings> {
    return this.#locked(guildId, async () => {
      const settings = guildSchema.parse(change(await this.guild(guildId)));
      await this.setGuild(guildId, settings);
      return settings;
    });
  }

  deleteGuild(guildId: string): Promise<GuildSettings | undefined> {
    return this.#locked(guildId, async () => {
      const stored: unknown = await this.#keyv.get(`guild:${guildId}`);
      if (stored === undefined) return undefined;
      await this.#keyv.delete(`guild:${guildId}`);
      const parsed = guildSchema.safeParse(stored);
      return parsed.success ? parsed.data : guildSchema.parse({});
    });
  }

  /** Runs `run` after the server's earlier changes, so none of them is lost or undone. */
  #locked<R>(guildId: string, run: () => Promise<R>): Promise<R> {
    const previous = this.#updates.get(guildId) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(run);
    this.#updates.set(guildId, next);
    void next
      .catch(() => undefined)
      .finally(() => {
        if (this.#updates.get(guildId) === next) this.#updates.delete(guildId);
      });
    return next;
  }

  async user(userId: string): Promise<UserSettings> {
    return userSchema.parse((await this.#keyv.get(`user:${userId}`)) ?? {});
  }

  async setUser(userId: string, settings: UserSettings): Promise<void> {
    await this.#keyv.set(`user:${userId}`, userSchema.parse(settings));
  }

  async *guildIds(): AsyncIterable<string> {
    const records = this.#keyv.iterator?.(this.#keyv.namespace);
    if (records === undefined) throw new Error('this store cannot list its records');
    for await (const [key] of records) {
      if (typeof key === 'string' && key.startsWith('guild:')) yield key.slice('guild:'.length);
    }
  }
}
