/** Generation records: state, audio bytes and their public JSON view. */
import type { UrlField } from './options.ts';
import type { Model } from './voices.ts';

/** `Failed` is not in the spec, but the vendor SDKs know it. */
export type GenerationStatus = 'Generating' | 'Completed' | 'Failed';

/** One generation task as the emulator keeps it. */
export interface Generation {
  id: string;
  userId: string;
  status: GenerationStatus;
  text: string;
  voiceId: string;
  model: Model;
  createdAt: number;
  /** When the task turned `Completed` (the emulator's clock), for latency measurements. */
  completedAt?: number;
  audio?: Buffer;
  error?: string;
}

/** Longest `text_input` shown unshortened. */
export const TEXT_PREVIEW_CHARS = 50;

/** Shortens long text with an ellipsis, as the vendor's status answer does. */
export function previewText(text: string): string {
  if (text.length <= TEXT_PREVIEW_CHARS) return text;
  return `${text.slice(0, TEXT_PREVIEW_CHARS).trimEnd()}...`;
}

/** ISO 8601 UTC without milliseconds, like the vendor's `2025-09-05T03:30:01Z`. */
export function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The GET /status body for a generation. */
export function statusView(
  gen: Generation,
  audioUrl: string | null,
  urlField: UrlField,
): Record<string, unknown> {
  const view: Record<string, unknown> = {
    generation_id: gen.id,
    user_id: gen.userId,
    status: gen.status,
    text_input: previewText(gen.text),
    voice_id: gen.voiceId,
    model: gen.model,
  };
  if (urlField !== 'url') view.audio_url = audioUrl;
  if (urlField !== 'audio_url') view.url = audioUrl;
  view.created_at = isoSeconds(gen.createdAt);
  if (gen.status === 'Failed') view.error = gen.error ?? 'Generation failed';
  return view;
}

/** All generations, with expiry after `retentionMs`. */
export class GenerationStore {
  readonly #byId = new Map<string, Generation>();
  readonly #retentionMs: number;
  readonly #now: () => number;

  constructor(retentionMs: number, now: () => number) {
    this.#retentionMs = retentionMs;
    this.#now = now;
  }

  /** Adds a generation (and forgets expired ones). */
  add(gen: Generation): void {
    this.#purge();
    this.#byId.set(gen.id, gen);
  }

  /** A live generation by id. */
  get(id: string): Generation | undefined {
    const gen = this.#byId.get(id);
    if (gen && this.#expired(gen)) {
      this.#byId.delete(id);
      return undefined;
    }
    return gen;
  }

  #expired(gen: Generation): boolean {
    return this.#now() - gen.createdAt >= this.#retentionMs;
  }

  #purge(): void {
    for (const [id, gen] of this.#byId) if (this.#expired(gen)) this.#byId.delete(id);
  }
}
