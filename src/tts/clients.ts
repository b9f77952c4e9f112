/**
 * The TTS clients of every key: one {@link TtsClient} per API key, kept while in use, and the
 * helper that opens a client's finished audio for playback.
 */
import type { Readable } from 'node:stream';
import { sniffAudio } from './audio.ts';
import { TtsClient } from './client.ts';
import type { TtsClientOptions } from './client-options.ts';
import { keyId } from './key.ts';
import type { Model, Voice } from './types.ts';

/**
 * Hands out one {@link TtsClient} per API key, so budgets, polling and caches are shared
 * per key. Clients not asked for in `clientIdleMs` with nothing under way are dropped,
 * so keys used once do not stay in memory.
 */
export class TtsClients {
  readonly #options: TtsClientOptions;
  readonly #clients = new Map<string, { readonly client: TtsClient; usedAt: number }>();
  readonly #idleMs: number;
  #sweptAt: number;

  constructor(options: TtsClientOptions) {
    this.#options = options;
    this.#idleMs = options.clientIdleMs ?? 3_600_000;
    this.#sweptAt = options.clock.now();
  }

  /** Clients held (for metrics and tests). */
  get size(): number {
    return this.#clients.size;
  }

  /** The client for `apiKey`. */
  forKey(apiKey: string): TtsClient {
    const now = this.#options.clock.now();
    this.#sweep(now);
    const id = keyId(apiKey);
    const held = this.#clients.get(id);
    if (held !== undefined) {
      held.usedAt = now;
      return held.client;
    }
    const client = new TtsClient(apiKey, this.#options);
    this.#clients.set(id, { client, usedAt: now });
    return client;
  }

  /**
   * Checks a key with a real GET /voices call. When the check fails for any reason and
   * the key was not in use before, nothing of it is kept: no client, no budget log.
   */
  async verify(apiKey: string, model: Model = 'base'): Promise<Voice[]> {
    const id = keyId(apiKey);
    const known = this.#clients.has(id);
    const client = this.forKey(apiKey);
    try {
      return await client.verify(model);
    } catch (error) {
      if (!known && this.#clients.get(id)?.client === client && !client.busy) {
        this.#clients.delete(id);
        this.#options.budgets.discard?.(id);
      }
      throw error;
    }
  }

  /** Writes what every key's polls learned that is not written yet (at shutdown, before the store closes). */
  async saveLearned(): Promise<void> {
    await Promise.all([...this.#clients.values()].map(({ client }) => client.saveLearned()));
  }

  #sweep(now: number): void {
    if (now - this.#sweptAt < Math.min(this.#idleMs, 60_000)) return;
    this.#sweptAt = now;
    for (const [id, held] of this.#clients) {
      if (now - held.usedAt >= this.#idleMs && !held.client.busy) this.#clients.delete(id);
    }
  }

  /**
   * Drops the client of `apiKey` (a key that failed verification or was removed),
   * so it no longer holds the key. Calls already under way finish normally; the
   * key's rate budgets stay in the budget store.
   */
  forget(apiKey: string): void {
    this.#clients.delete(keyId(apiKey));
  }
}

/**
 * Opens finished audio for playback with its format sniffed from the first bytes (the
 * address says nothing reliable): what a voice source hands to ffmpeg. Rejects when the
 * bytes are not audio in a known format; an abort rejects with its own reason.
 */
export async function openSniffed(
  client: Pick<TtsClient, 'stream'>,
  audioUrl: string,
  signal: AbortSignal,
): Promise<{ stream: Readable; mime: string; extension: string }> {
  try {
    return await sniffAudio(await client.stream(audioUrl, signal));
  } catch (error) {
    throw signal.aborted ? signal.reason : error;
  }
}
