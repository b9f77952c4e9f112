import type Keyv from 'keyv';
import { z } from 'zod';
import { deleteKeysUnder } from './key-scan.ts';
import { readSwappable } from './swap.ts';

const recordSchema = z.object({
  version: z.literal(2),
  voiceId: z.string().max(100),
  /** When the chatter was last seen with it (ms), to refresh the record's life once a day. */
  at: z.number(),
});

/** One chatter's automatic voice, as stored. */
export interface StoredAssignment {
  readonly voiceId: string;
  /** When it was given or last refreshed (ms since the epoch). */
  readonly at: number;
}

/** Reads of a first voice's record before `claim` gives up (another writer each time). */
const CLAIM_ATTEMPTS = 3;

/** A chatter unseen for this long loses their voice (they then get a first voice again). */
export const ASSIGNMENT_KEPT_MS = 30 * 86_400_000;

/**
 * Each chatter's automatic voice in each server (`voices:<guildId>:<chatter>`), one record per
 * chatter so a server of thousands of chatters writes one small record per new chatter; kept
 * in the bot's store, so a chatter keeps their voice across restarts, and on Redis across
 * shards. Holds ids only.
 */
export class KeyvVoiceAssignments {
  readonly #keyv: Keyv;

  constructor(keyv: Keyv) {
    this.#keyv = keyv;
  }

  /** The chatter's voice in the server; undefined when none is stored or it is unreadable. */
  async get(guildId: string, chatter: string): Promise<StoredAssignment | undefined> {
    return assignmentOf(await this.#keyv.get(keyOf(guildId, chatter)));
  }

  /** Stores the chatter's voice, kept {@link ASSIGNMENT_KEPT_MS} from now. */
  async set(guildId: string, chatter: string, assignment: StoredAssignment): Promise<void> {
    await this.#keyv.set(keyOf(guildId, chatter), recordOf(assignment), ASSIGNMENT_KEPT_MS);
  }

  /**
   * Stores the chatter's first voice only if they still have none (set-if-absent, across
   * processes: see `readSwappable`), so two shards or two turns assigning at once agree on one.
   * The voice the chatter has after: `assignment`, or the one given first elsewhere.
   */
  async claim(
    guildId: string,
    chatter: string,
    assignment: StoredAssignment,
  ): Promise<StoredAssignment> {
    for (let attempt = 1; ; attempt++) {
      const stored = await readSwappable(this.#keyv, keyOf(guildId, chatter));
      const had = assignmentOf(stored.value);
      if (had !== undefined) return had;
      // An unreadable record is replaced; a swap lost to another writer reads theirs.
      if (await stored.swap(recordOf(assignment), ASSIGNMENT_KEPT_MS)) return assignment;
      if (attempt >= CLAIM_ATTEMPTS) throw new Error(`the voice of ${chatter} kept changing`);
    }
  }

  /** Deletes the server's voices (`/config forget`), the one-table record of older versions too; whether there were any. */
  async forget(guildId: string): Promise<boolean> {
    const table = await this.#keyv.delete(`voices:${guildId}`);
    return (await deleteKeysUnder(this.#keyv, `voices:${guildId}:`)) > 0 || table;
  }
}

function keyOf(guildId: string, chatter: string): string {
  return `voices:${guildId}:${chatter}`;
}

/** The stored record of an assignment. */
function recordOf(assignment: StoredAssignment): z.infer<typeof recordSchema> {
  return { version: 2, voiceId: assignment.voiceId, at: assignment.at };
}

/** The assignment a stored record holds; undefined when there is none or it is unreadable. */
function assignmentOf(record: unknown): StoredAssignment | undefined {
  const parsed = recordSchema.safeParse(record);
  return parsed.success ? { voiceId: parsed.data.voiceId, at: parsed.data.at } : undefined;
}
