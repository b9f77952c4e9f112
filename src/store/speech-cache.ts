import type Keyv from 'keyv';
import { z } from 'zod';
import type { CachedSpeech, SpeechCacheStore } from '../tts/index.ts';
import { deleteKeysUnder } from './key-scan.ts';

const entrySchema = z.object({
  generationId: z.string().min(1),
  audioUrl: z.string().min(1),
  expiresAt: z.number(),
});

/** Cached speech in keyv (`speech:<hash>`), so `/say` and the chat reader share it across restarts. */
export class KeyvSpeechCacheStore implements SpeechCacheStore {
  readonly #keyv: Keyv;

  constructor(keyv: Keyv) {
    this.#keyv = keyv;
  }

  /** The entry under `key`; undefined when absent, expired or unreadable. */
  async get(key: string): Promise<CachedSpeech | undefined> {
    const parsed = entrySchema.safeParse(await this.#keyv.get(`speech:${key}`));
    return parsed.success ? parsed.data : undefined;
  }

  /** Stores an entry that keyv drops after `ttlMs`. */
  async set(key: string, entry: CachedSpeech, ttlMs: number): Promise<void> {
    await this.#keyv.set(`speech:${key}`, entry, ttlMs);
  }

  /** Drops an entry. */
  async delete(key: string): Promise<void> {
    await this.#keyv.delete(`speech:${key}`);
  }

  /**
   * Drops every entry of one API key (its `keyId`, which starts each cache key); resolves with
   * how many there were. For forgetting a server whose key no other server uses.
   */
  async forgetKey(keyId: string): Promise<number> {
    return deleteKeysUnder(this.#keyv, `speech:${keyId}:`);
  }
}
