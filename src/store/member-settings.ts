import type Keyv from 'keyv';
import { z } from 'zod';
import { deleteKeysUnder } from './key-scan.ts';
import { readSwappable } from './swap.ts';

/** Longest name a member or an admin may give (Discord's own nickname limit). */
export const SPOKEN_NAME_MAX = 32;

/** Who set a member's spoken name: themselves (`/myvoice name`) or an admin (`/config member-name`). */
export const NAME_SETTERS = ['member', 'admin'] as const;

const memberSchema = z.object({
  /** false: the chat reader does not read the member's messages in this server. */
  read: z.boolean().optional(),
  /** How the member's name is spoken before their messages ("Bobby said"), instead of their nickname. */
  name: z.string().min(1).max(SPOKEN_NAME_MAX).optional(),
  nameBy: z.enum(NAME_SETTERS).optional(),
});
/** One member's own settings in one server. */
export type MemberSettings = z.infer<typeof memberSchema>;

/** Writes one change tries while another writer keeps changing the record in between. */
const UPDATE_ATTEMPTS = 5;

// Control and format characters (newlines, zero-width joiners, bidi marks): nothing to speak,
// and they would let a name look like another in a reply.
const INVISIBLE = /[\p{Cc}\p{Cf}]/gu;

/**
 * A spoken name as typed, made one trimmed line of at most {@link SPOKEN_NAME_MAX} characters;
 * undefined when nothing visible is left (the caller refuses it). Pure.
 */
export function normalizeSpokenName(raw: string): string | undefined {
  const name = raw.replace(INVISIBLE, ' ').replace(/\s+/g, ' ').trim();
  if (name === '') return undefined;
  return [...name].slice(0, SPOKEN_NAME_MAX).join('').trim();
}

/**
 * Each member's own settings in each server (`member:<guildId>:<userId>`): whether the chat
 * reader reads them and how their name is spoken. One small record per member who set
 * anything, kept in the bot's store (across restarts, and on Redis across shards) until the
 * member resets it or the server is forgotten. The only way the bot reads or writes them.
 * A member's voice and language (`user:<id>`, the same in every server) are `SettingsStore`'s.
 */
export class KeyvMemberSettings {
  readonly #keyv: Keyv;

  constructor(keyv: Keyv) {
    this.#keyv = keyv;
  }

  /** The member's settings in the server; none set (or an unreadable record) is `{}`. */
  async get(guildId: string, userId: string): Promise<MemberSettings> {
    return settingsOf(await this.#keyv.get(keyOf(guildId, userId)));
  }

  /**
   * Changes the member's settings in the server and resolves with what was written; written
   * only if nobody wrote the record in between (else `change` runs again on what they wrote).
   */
  async update(
    guildId: string,
    userId: string,
    change: (settings: MemberSettings) => MemberSettings,
  ): Promise<MemberSettings> {
    for (let attempt = 1; ; attempt++) {
      const stored = await readSwappable(this.#keyv, keyOf(guildId, userId));
      const next = memberSchema.parse(change(settingsOf(stored.value)));
      if (await stored.swap(next)) return next;
      if (attempt >= UPDATE_ATTEMPTS)
        throw new Error(`the settings of member ${userId} kept changing`);
    }
  }

  /** Deletes the member's settings in the server (their own reset); whether there were any. */
  forget(guildId: string, userId: string): Promise<boolean> {
    return this.#keyv.delete(keyOf(guildId, userId));
  }

  /** Deletes every member's settings in the server (`/config forget`); how many records there were. */
  forgetGuild(guildId: string): Promise<number> {
    return deleteKeysUnder(this.#keyv, `member:${guildId}:`);
  }
}

function keyOf(guildId: string, userId: string): string {
  return `member:${guildId}:${userId}`;
}

/** The settings a stored record holds; `{}` when there is none or it is unreadable. */
function settingsOf(record: unknown): MemberSettings {
  const parsed = memberSchema.safeParse(record ?? {});
  return parsed.success ? parsed.data : {};
}
