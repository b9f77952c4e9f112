import { createHash } from 'node:crypto';
import type { Clock } from './clock.ts';
import type { SpeechRequest } from './types.ts';

/** The vendor keeps an audio address for 24 hours; a cached one must expire before that. */
export const AUDIO_LIFETIME_MS = 24 * 3_600_000;

/** Speech generated earlier: its audio address, reused until `expiresAt` (epoch ms). */
export interface CachedSpeech {
  readonly generationId: string;
  readonly audioUrl: string;
  readonly expiresAt: number;
}

/** Where cached speech is kept (the bot's store, so it survives restarts). Entries expire by themselves. */
export interface SpeechCacheStore {
  get(key: string): Promise<CachedSpeech | undefined>;
  set(key: string, entry: CachedSpeech, ttlMs: number): Promise<void>;
  delete(key: string): Promise<void>;
}

/** Settings of a {@link SpeechCache}. */
export interface SpeechCacheOptions {
  readonly store: SpeechCacheStore;
  /** How long after its generation audio is reused; 0 turns the cache off. Below {@link AUDIO_LIFETIME_MS}. */
  readonly ttlMs: number;
  readonly clock: Clock;
  /** A store failure: the cache is skipped (a generation never fails because of it). */
  readonly onError: (error: unknown) => void;
}

/**
 * The cache key of a request for one API key: everything that changes the
 * audio (model, voice, speed, the advance-only parameters, the text), with the
 * API's defaults filled in and the case-insensitive voice id lower-cased. It
 * is scoped to the key, so one server never learns what another had spoken,
 * and is a hash, so the store holds no spoken text. It starts with the key id, so a
 * forgotten key's entries can be found and deleted.
 */
export function speechCacheKey(keyId: string, request: SpeechRequest): string {
  const advance = request.model === 'advance';
  const parts = [
    keyId,
    request.model,
    request.voiceId.toLowerCase(),
    request.speed ?? 1,
    advance ? (request.emotion ?? null) : null,
    advance ? (request.temperature ?? null) : null,
    advance ? (request.topP ?? null) : null,
    request.text,
    // Last and only when set: the keys of requests without a language stay as they were.
    ...(request.language === undefined ? [] : [request.language]),
  ];
  return `${keyId}:${createHash('sha256').update(JSON.stringify(parts)).digest('base64url')}`;
}

/**
 * Reuses the audio of an identical earlier request (no `POST /tts`, no
 * quota). Failures of the store are reported and otherwise ignored: without
 * the cache, speech is generated as usual.
 */
export class SpeechCache {
  readonly #options: SpeechCacheOptions;

  constructor(options: SpeechCacheOptions) {
    if (!(options.ttlMs >= 0 && options.ttlMs < AUDIO_LIFETIME_MS)) {
      throw new RangeError('the speech cache lifetime must be at least 0 and below 24 hours');
    }
    this.#options = options;
  }

  /** False when the lifetime is 0: nothing is looked up or stored. */
  get enabled(): boolean {
    return this.#options.ttlMs > 0;
  }

  /** The unexpired audio of an identical request of this key, if any. */
  async lookup(keyId: string, request: SpeechRequest): Promise<CachedSpeech | undefined> {
    if (!this.enabled) return undefined;
    try {
      const entry = await this.#options.store.get(speechCacheKey(keyId, request));
      return entry !== undefined && entry.expiresAt > this.#options.clock.now() ? entry : undefined;
    } catch (error) {
      this.#options.onError(error);
      return undefined;
    }
  }

  /** Keeps a finished generation (submitted at `submittedAt`) for reuse until the lifetime after it. */
  async remember(
    keyId: string,
    request: SpeechRequest,
    generation: { generationId: string; audioUrl: string; submittedAt: number },
  ): Promise<void> {
    if (!this.enabled) return;
    const expiresAt = generation.submittedAt + this.#options.ttlMs;
    const ttlMs = expiresAt - this.#options.clock.now();
    if (ttlMs <= 0) return;
    const entry = {
      generationId: generation.generationId,
      audioUrl: generation.audioUrl,
      expiresAt,
    };
    try {
      await this.#options.store.set(speechCacheKey(keyId, request), entry, ttlMs);
    } catch (error) {
      this.#options.onError(error);
    }
  }

  /** Drops the entry of a request (its address answered 404). */
  async forget(keyId: string, request: SpeechRequest): Promise<void> {
    if (!this.enabled) return;
    try {
      await this.#options.store.delete(speechCacheKey(keyId, request));
    } catch (error) {
      this.#options.onError(error);
    }
  }
}
