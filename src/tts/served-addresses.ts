import type { GenerateOptions } from './shared-generation.ts';
import type { SpeechRequest } from './types.ts';

/** Cached addresses handed out recently, so a 404 on one can be answered with a fresh generation. */
const MAX_SERVED = 1000;

/** An address served from the cache: the request that made it and the call it was served to. */
export interface Served {
  readonly request: SpeechRequest;
  readonly options: Pick<GenerateOptions, 'onSubmitted' | 'holdAgain'>;
}

/**
 * Audio addresses that came from the cache, with the request that made them and the options
 * of the call they were served to, whose hold and ledger a regeneration goes through (oldest
 * first, the last {@link MAX_SERVED}).
 */
export class ServedAddresses {
  readonly #byUrl = new Map<string, Served>();

  /** What `audioUrl` was served as; undefined when it was not served from the cache lately. */
  get(audioUrl: string): Served | undefined {
    return this.#byUrl.get(audioUrl);
  }

  /** Forgets `audioUrl` (it is gone: a regeneration replaces it). */
  forget(audioUrl: string): void {
    this.#byUrl.delete(audioUrl);
  }

  /** Remembers that `audioUrl` was served from the cache for `request` in a call with `options`. */
  serve(audioUrl: string, request: SpeechRequest, options: GenerateOptions): void {
    const { onSubmitted, holdAgain } = options;
    this.#byUrl.delete(audioUrl);
    this.#byUrl.set(audioUrl, {
      request,
      // Only these: the call's signal and progress end with it.
      options: {
        ...(onSubmitted === undefined ? {} : { onSubmitted }),
        ...(holdAgain === undefined ? {} : { holdAgain }),
      },
    });
    for (const oldest of this.#byUrl.keys()) {
      if (this.#byUrl.size <= MAX_SERVED) break;
      this.#byUrl.delete(oldest);
    }
  }
}
