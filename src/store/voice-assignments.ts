import type Keyv from 'keyv';
import { z } from 'zod';

const recordSchema = z.object({
  version: z.literal(1),
  table: z.array(z.object({ chatter: z.string().max(100), voiceId: z.string().max(100) })).max(200),
});

/** One chatter's automatic voice, as stored. */
export interface StoredAssignment {
  readonly chatter: string;
  readonly voiceId: string;
}

/** A server unused for this long loses its table (chatters then start again from their hash). */
const KEPT_MS = 30 * 86_400_000;

/**
 * Each server's automatic voices (`voices:<guildId>`): its recent chatters and their voices, so
 * a chatter keeps theirs across restarts, and on Redis across shards. Holds ids only.
 */
export class KeyvVoiceAssignments {
  readonly #keyv: Keyv;

  constructor(keyv: Keyv) {
    this.#keyv = keyv;
  }

  /** The server's table, most recent chatter first; empty when none is stored or it is unreadable. */
  async load(guildId: string): Promise<readonly StoredAssignment[]> {
    const parsed = recordSchema.safeParse(await this.#keyv.get(`voices:${guildId}`));
    return parsed.success ? parsed.data.table : [];
  }

  /** Replaces the server's table. */
  async save(guildId: string, table: readonly StoredAssignment[]): Promise<void> {
    await this.#keyv.set(`voices:${guildId}`, { version: 1, table }, KEPT_MS);
  }

  /** Deletes the server's table (`/config forget`); whether there was one. */
  forget(guildId: string): Promise<boolean> {
    return this.#keyv.delete(`voices:${guildId}`);
  }
}
