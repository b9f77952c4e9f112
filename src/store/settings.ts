import type Keyv from 'keyv';
import { z } from 'zod';
import { MODELS } from '../tts/types.ts';
import { blockedWordsSchema, dictionarySchema, readerSettingsSchema } from './reader-settings.ts';
import { readSwappable } from './swap.ts';
import { twitchSettingsSchema } from './twitch-settings.ts';

const voiceId = z.string().trim().min(1).max(100);

/** A speech language as settings keep it: an ISO 639-1 code. */
const speechLanguage = z.string().regex(/^[a-z]{2}$/);

/** Server-wide defaults for `/say`. */
export const guildDefaultsSchema = z.object({
  voiceId: voiceId.optional(),
  model: z.enum(MODELS).optional(),
  speed: z.number().min(0.5).max(2).optional(),
  /** The server's speech language (ISO 639-1): what lines too short to tell are read in. */
  language: speechLanguage.optional(),
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
  /** The server's daily budget in micro-dollars (v3); absent or 0: none. */
  dailyBudgetMicros: z.number().int().min(0).max(1_000_000_000_000).optional(),
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
  /** Twitch reading (`/config twitch`), chatters' `!voice` choices and moderators' mutes. */
  twitch: twitchSettingsSchema.prefault({}),
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

const userSchema = z.object({
  voiceId: voiceId.optional(),
  /** The member's own speech language (ISO 639-1), before the server's. */
  language: speechLanguage.optional(),
});
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
   * once never lose one another, and only if no other process wrote the record in between
   * (else `change` runs again on what it wrote: keep it free of side effects); resolves with
   * what was written.
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
  /** Deletes the member's voice and language (their own reset); whether there were any. */
  deleteUser(userId: string): Promise<boolean>;
  /** The id of every server with stored settings (for start-up migrations; reads the whole store). */
  guildIds(): AsyncIterable<string>;
}

/**
 * How long the bot keeps a server's settings in memory (5 s). Every write through this store
 * drops its copy at once; the time bounds only writes this process cannot see: a CLI tool
 * writing the shared store while the bot runs, or a server that moved to another shard at a
 * reshard. Discord sends a server's commands to the one shard serving it, so every `/config`
 * change runs where the server's chat is read, and another shard never holds the server's
 * settings at all; no cross-shard invalidation is needed beyond the time.
 */
export const SETTINGS_CACHE_MS = 5_000;

/** Reads and writes one update tries while other processes keep writing the record in between. */
const SWAP_ATTEMPTS = 10;

/** Most servers' settings kept in memory at once (the oldest copy goes first). */
const CACHED_GUILDS = 10_000;

/** How a {@link KeyvSettingsStore} keeps servers' settings in memory. */
export interface SettingsCacheOptions {
  /** How long a copy is used (0, the default: none is kept; the bot passes {@link SETTINGS_CACHE_MS}). */
  readonly cacheMs?: number;
  readonly now?: () => number;
}

/**
 * Settings in keyv, validated on the way in and out. With `cacheMs`, a server's settings are
 * read from the store once per that time (a busy chat read them for each message and each
 * server), dropped at once by every write of this store.
 */
export class KeyvSettingsStore implements SettingsStore {
  readonly #keyv: Keyv;
  /** The last update of each server still running, so the next one waits for it. */
  readonly #updates = new Map<string, Promise<unknown>>();
  readonly #cacheMs: number;
  readonly #now: () => number;
  readonly #cached = new Map<
    string,
    { readonly settings: GuildSettings; readonly until: number }
  >();
  /** Writes started per server: a read that saw one start meanwhile keeps no copy. */
  readonly #writes = new Map<string, number>();

  constructor(keyv: Keyv, options: SettingsCacheOptions = {}) {
    this.#keyv = keyv;
    this.#cacheMs = options.cacheMs ?? 0;
    this.#now = options.now ?? Date.now;
  }

  async guild(guildId: string): Promise<GuildSettings> {
    if (this.#cacheMs <= 0) return this.#read(guildId);
    const hit = this.#cached.get(guildId);
    // A copy each time: a caller changing what it got never changes what others get.
    if (hit !== undefined && hit.until > this.#now()) return structuredClone(hit.settings);
    const writes = this.#writes.get(guildId) ?? 0;
    const settings = await this.#read(guildId);
    if ((this.#writes.get(guildId) ?? 0) === writes) {
      this.#cached.delete(guildId);
      this.#cached.set(guildId, { settings, until: this.#now() + this.#cacheMs });
      if (this.#cached.size > CACHED_GUILDS) {
        const [oldest] = this.#cached.keys();
        if (oldest !== undefined) this.#cached.delete(oldest);
      }
    }
    return structuredClone(settings);
  }

  async setGuild(guildId: string, settings: GuildSettingsInput): Promise<void> {
    await this.#written(guildId, () =>
      this.#keyv.set(`guild:${guildId}`, guildSchema.parse(settings)),
    );
  }

  updateGuild(
    guildId: string,
    change: (settings: GuildSettings) => GuildSettingsInput,
  ): Promise<GuildSettings> {
    return this.#locked(guildId, () =>
      this.#written(guildId, async () => {
        // From the store, never a copy, and written only if nobody wrote in between: another
        // process (`secrets:rotate`, a shard) has no part in this process's lock.
        for (let attempt = 1; ; attempt++) {
          const record = await readSwappable(this.#keyv, `guild:${guildId}`);
          const settings = guildSchema.parse(change(guildSchema.parse(record.value ?? NEW_GUILD)));
          if (await record.swap(settings)) return settings;
          if (attempt >= SWAP_ATTEMPTS)
            throw new Error(`settings of ${guildId} kept changing under this update`);
        }
      }),
    );
  }

  deleteGuild(guildId: string): Promise<GuildSettings | undefined> {
    return this.#locked(guildId, async () => {
      const stored: unknown = await this.#keyv.get(`guild:${guildId}`);
      if (stored === undefined) return undefined;
      await this.#written(guildId, () => this.#keyv.delete(`guild:${guildId}`));
      const parsed = guildSchema.safeParse(stored);
      return parsed.success ? parsed.data : guildSchema.parse({});
    });
  }

  async #read(guildId: string): Promise<GuildSettings> {
    return guildSchema.parse((await this.#keyv.get(`guild:${guildId}`)) ?? NEW_GUILD);
  }

  /** Runs a write of the server's record with its copy dropped before and after. */
  async #written<R>(guildId: string, write: () => Promise<R>): Promise<R> {
    this.#writes.set(guildId, (this.#writes.get(guildId) ?? 0) + 1);
    this.#cached.delete(guildId);
    try {
      return await write();
    } finally {
      this.#cached.delete(guildId);
      this.#writes.set(guildId, (this.#writes.get(guildId) ?? 0) + 1);
    }
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

  deleteUser(userId: string): Promise<boolean> {
    return this.#keyv.delete(`user:${userId}`);
  }

  async *guildIds(): AsyncIterable<string> {
    const records = this.#keyv.iterator?.(this.#keyv.namespace);
    if (records === undefined) throw new Error('this store cannot list its records');
    for await (const [key] of records) {
      if (typeof key === 'string' && key.startsWith('guild:')) yield key.slice('guild:'.length);
    }
  }
}
