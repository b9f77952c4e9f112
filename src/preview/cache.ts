import type Keyv from 'keyv';
import { z } from 'zod';
import { deleteKeysUnder } from '../store/index.ts';

/**
 * What every preview says: fixed, so one generation per key and voice serves every later
 * preview, and longer than the API's 30-character minimum.
 */
export const PREVIEW_TEXT = 'Hello! This is how I sound when I read your messages aloud.';

/** A voice sample, as generated and downloaded once. */
export interface PreviewAudio {
  readonly generationId: string;
  readonly bytes: Buffer;
  readonly mime: string;
  readonly extension: string;
}

/** Which sample: one per API key (by its id, never the key), model and voice. */
export interface PreviewId {
  readonly keyId: string;
  readonly model: string;
  readonly voiceId: string;
}

const recordSchema = z.object({
  generationId: z.string(),
  mime: z.string(),
  extension: z.string(),
  data: z.string(),
});

/** How long a sample is kept unused: voices rarely change, and a stale one costs one generation. */
const KEEP_MS = 90 * 86_400_000;

/**
 * Voice samples in the store. The only way previews are generated: a sample is made once per
 * key and voice (concurrent asks share that one generation) and read from the store after.
 */
export class PreviewCache {
  readonly #keyv: Keyv;
  readonly #making = new Map<string, Promise<PreviewAudio>>();

  constructor(keyv: Keyv) {
    this.#keyv = keyv;
  }

  /** The stored sample, or `make()`'s, stored for next time; `cached` says which. */
  async get(
    id: PreviewId,
    make: () => Promise<PreviewAudio>,
  ): Promise<{ audio: PreviewAudio; cached: boolean }> {
    const key = storeKey(id);
    const stored = await this.#read(key);
    if (stored !== undefined) return { audio: stored, cached: true };
    const inFlight = this.#making.get(key);
    if (inFlight !== undefined) return { audio: await inFlight, cached: true };
    const making = (async () => {
      const audio = await make();
      await this.#keyv.set(
        key,
        {
          generationId: audio.generationId,
          mime: audio.mime,
          extension: audio.extension,
          data: audio.bytes.toString('base64'),
        },
        KEEP_MS,
      );
      return audio;
    })();
    this.#making.set(key, making);
    try {
      return { audio: await making, cached: false };
    } finally {
      this.#making.delete(key);
    }
  }

  /**
   * Deletes every sample of one API key (by its id); resolves with how many there were. For
   * forgetting a server whose key no other server uses.
   */
  async forgetKey(keyId: string): Promise<number> {
    return deleteKeysUnder(this.#keyv, `preview:${keyId}:`);
  }

  async #read(key: string): Promise<PreviewAudio | undefined> {
    const parsed = recordSchema.safeParse(await this.#keyv.get(key));
    if (!parsed.success) return undefined;
    const { data, ...rest } = parsed.data;
    return { ...rest, bytes: Buffer.from(data, 'base64') };
  }
}

function storeKey({ keyId, model, voiceId }: PreviewId): string {
  return `preview:${keyId}:${model}:${voiceId.toLowerCase()}`;
}
