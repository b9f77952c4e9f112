import type Keyv from 'keyv';
import { z } from 'zod';
import { deleteKeysUnder, keysUnder } from './key-scan.ts';

const recordSchema = z.object({
  version: z.literal(1),
  voiceId: z.string().min(1).max(100),
  /** When it was chosen or last refreshed (ms), to refresh the record's life once a day. */
  at: z.number(),
});

/** One chatter's `!voice` choice, as stored. */
export interface ChosenVoice {
  readonly voiceId: string;
  /** When it was chosen or last refreshed (ms since the epoch). */
  readonly at: number;
}

/** A chatter unseen for this long loses their chosen voice (as an automatic one is lost). */
export const CHOSEN_VOICE_KEPT_MS = 90 * 86_400_000;

/** A Twitch user id as Twitch gives it (digits): the only keys of the chosen voices. */
const TWITCH_USER_ID = /^\d{1,25}$/;

/**
 * Each Twitch chatter's `!voice` choice in each server (`chat-voice:<guildId>:<userId>`), one
 * small record per chatter, as automatic voices are kept: a choice writes its own record, never
 * the server's (which held up to 2,000 of them before, rewritten whole by every `!voice`). The
 * only way the bot reads or writes them.
 */
export class KeyvChatVoices {
  readonly #keyv: Keyv;

  constructor(keyv: Keyv) {
    this.#keyv = keyv;
  }

  /** The chatter's chosen voice in the server; undefined when none is stored or it is unreadable. */
  async get(guildId: string, userId: string): Promise<ChosenVoice | undefined> {
    if (!TWITCH_USER_ID.test(userId)) return undefined;
    const parsed = recordSchema.safeParse(await this.#keyv.get(keyOf(guildId, userId)));
    return parsed.success ? { voiceId: parsed.data.voiceId, at: parsed.data.at } : undefined;
  }

  /** Stores the chatter's choice, kept {@link CHOSEN_VOICE_KEPT_MS} from `at`; false for an id that is no Twitch user id. */
  async set(guildId: string, userId: string, chosen: ChosenVoice): Promise<boolean> {
    if (!TWITCH_USER_ID.test(userId)) return false;
    const record = { version: 1, voiceId: chosen.voiceId, at: chosen.at } as const;
    await this.#keyv.set(keyOf(guildId, userId), record, CHOSEN_VOICE_KEPT_MS);
    return true;
  }

  /** Deletes the chatter's choice (`!voice` alone); whether there was one. */
  async delete(guildId: string, userId: string): Promise<boolean> {
    if (!TWITCH_USER_ID.test(userId)) return false;
    return this.#keyv.delete(keyOf(guildId, userId));
  }

  /** How many chatters of the server have a choice stored (reads every key of the server's: rare). */
  async count(guildId: string): Promise<number> {
    return (await keysUnder(this.#keyv, `chat-voice:${guildId}:`)).length;
  }

  /** Deletes every choice of the server (`/config forget`); how many there were. */
  forget(guildId: string): Promise<number> {
    return deleteKeysUnder(this.#keyv, `chat-voice:${guildId}:`);
  }
}

function keyOf(guildId: string, userId: string): string {
  return `chat-voice:${guildId}:${userId}`;
}
