import type Keyv from 'keyv';
import { z } from 'zod';
import type { LearnedState, LearnedTimesStore } from '../tts/index.ts';

const modelSchema = z.object({
  samples: z.array(z.tuple([z.number(), z.number(), z.number()])).max(200),
  marginMs: z.number(),
});
/**
 * 2: learned only from generations timed from their own submit. Version 1 records may hold a
 * stream's sending pace (a cut stream polled to its end, timed from its start), which later first
 * polls confirmed rather than corrected: they are read as nothing learned, and the key starts
 * again from the prior (one probe) rather than from a wrong estimate.
 */
const VERSION = 2;
const recordSchema = z.object({
  version: z.literal(VERSION),
  learned: z.object({ base: modelSchema.optional(), advance: modelSchema.optional() }),
});

/** A key nobody polled with for this long loses what was learned for it. */
const KEPT_MS = 30 * 86_400_000;

/**
 * Learned generation times per key in keyv (`poll-times:<keyId>`), so a restart starts from
 * them and, on Redis, every shard shares them (the last write wins). Holds no key and no text.
 */
export class KeyvLearnedTimesStore implements LearnedTimesStore {
  readonly #keyv: Keyv;

  constructor(keyv: Keyv) {
    this.#keyv = keyv;
  }

  /** What was saved for the key; undefined when nothing was or it cannot be read. */
  async load(keyId: string): Promise<LearnedState | undefined> {
    const parsed = recordSchema.safeParse(await this.#keyv.get(`poll-times:${keyId}`));
    return parsed.success ? parsed.data.learned : undefined;
  }

  /** Replaces what is saved for the key. */
  async save(keyId: string, learned: LearnedState): Promise<void> {
    await this.#keyv.set(`poll-times:${keyId}`, { version: VERSION, learned }, KEPT_MS);
  }
}
