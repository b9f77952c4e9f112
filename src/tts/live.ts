/**
 * Speech for a voice item where the API streams: live PCM from the first chunk on, and the
 * backup file into the speech cache; a stream that fails before its first chunk falls back to
 * submit-and-poll, charging once where the API allows it.
 */
import type { Readable } from 'node:stream';
import type { Clock } from './clock.ts';
import type { GenerationCost } from './cost.ts';
import { TtsError } from './errors.ts';
import type { LiveStream, PcmFormat, StreamHooks } from './protocol.ts';
import { untilAborted } from './shared-generation.ts';

/** A finished generation, as `TtsClient.generate` gives it (kept here so this file imports no client). */
export interface FinishedSpeech {
  readonly generationId: string;
  readonly audioUrl: string;
  readonly cached?: boolean;
}

/** A caller's cancellation and listeners, as `TtsClient.generate` takes them. */
export interface LiveOptions {
  readonly signal?: AbortSignal;
  readonly onSubmitted?: (generationId: string, cost?: GenerationCost) => Promise<void> | void;
  readonly onProgress?: (
    progress:
      | { readonly stage: 'waiting-for-budget'; readonly ahead: () => number }
      | { readonly stage: 'generating'; readonly generationId: string },
  ) => void;
}

/** Speech for a voice item: a finished file, or a generation still streaming. */
export type VoiceSpeech =
  | { readonly kind: 'file'; readonly finished: FinishedSpeech }
  | {
      readonly kind: 'live';
      readonly generationId: string;
      readonly format: PcmFormat;
      /** Raw PCM in `format`; destroyed with a TtsError if the stream fails mid-way. */
      readonly pcm: Readable;
      /** The generation with its backup file's address, once the stream completed. */
      readonly finished: Promise<FinishedSpeech>;
      /**
       * The speech as a file after `pcm` failed before anyone played it: the same generation
       * polled (a cut socket does not stop it), or made again where the API said it failed.
       */
      readonly recover: (signal: AbortSignal) => Promise<FinishedSpeech>;
    };

/** What {@link liveSpeech} uses of the key's client. */
export interface LiveDeps {
  readonly clock: Clock;
  /** The audio of an identical recent request, if cached. */
  readonly lookup: () => Promise<FinishedSpeech | undefined>;
  readonly stream: (hooks: StreamHooks) => Promise<LiveStream>;
  /**
   * Waits for the stream's generation without starting it again. `streamStartedAt` is when the
   * stream said `started`: its polls are timed from there and measure the stream's sending pace,
   * so they must not teach the key's learned times.
   */
  readonly resume: (
    generationId: string,
    streamStartedAt: number,
    signal?: AbortSignal,
  ) => Promise<FinishedSpeech>;
  /** Submit and poll, as a file-mode request does. */
  readonly generate: (options: LiveOptions) => Promise<FinishedSpeech>;
  /** Keeps a finished generation in the speech cache. */
  readonly remember: (generation: {
    generationId: string;
    audioUrl: string;
    submittedAt: number;
  }) => Promise<void>;
  /** Told of each stream that failed before its first chunk and fell back (for a log line). */
  readonly onFallback?: ((error: unknown) => void) | undefined;
}

/**
 * Failures a stream has in common with a submit of the same request (key, balance, plan,
 * voice, text, our own budget): falling back would only fail again.
 */
const NO_FALLBACK = new Set([
  'invalid_key',
  'access_denied',
  'plan_required',
  'invalid_voice',
  'bad_request',
  'insufficient_balance',
  'quota_exhausted',
]);

/**
 * Streams the speech, or serves it from the cache. When the stream fails before its first
 * chunk: with no generation started, it is submitted; with one started and cut off, that
 * generation is polled (hanging up does not stop it, so it is not paid twice); one the server
 * said failed was given back (`pricing.mdx`) and is submitted again.
 */
export async function liveSpeech(options: LiveOptions, deps: LiveDeps): Promise<VoiceSpeech> {
  const { signal, onProgress, onSubmitted } = options;
  const cached = await deps.lookup();
  if (cached !== undefined) return { kind: 'file', finished: cached };
  onProgress?.({ stage: 'waiting-for-budget', ahead: () => 0 });
  let started: { generationId: string; at: number } | undefined;
  let live: LiveStream;
  try {
    live = await deps.stream({
      signal,
      onStarted: async (generationId, cost) => {
        started = { generationId, at: deps.clock.now() };
        await onSubmitted?.(generationId, cost);
        onProgress?.({ stage: 'generating', generationId });
      },
    });
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    if (error instanceof TtsError && NO_FALLBACK.has(error.kind)) throw error;
    deps.onFallback?.(error);
    return { kind: 'file', finished: await fallBack(error, started, options, deps) };
  }
  const submittedAt = started?.at ?? deps.clock.now();
  const { generationId } = live;
  const finished = live.completed.then(async (audioUrl) => {
    await deps.remember({ generationId, audioUrl, submittedAt });
    return { generationId, audioUrl };
  });
  // Whoever plays the PCM hears of a failure through it; this copy needs no listener.
  finished.catch(() => undefined);
  const recover = (recoverSignal: AbortSignal): Promise<FinishedSpeech> =>
    fallBack(
      live.pcm.errored,
      { generationId, at: submittedAt },
      { ...options, signal: recoverSignal },
      deps,
    );
  return { kind: 'live', generationId, format: live.format, pcm: live.pcm, finished, recover };
}

async function fallBack(
  error: unknown,
  started: { generationId: string; at: number } | undefined,
  options: LiveOptions,
  deps: LiveDeps,
): Promise<FinishedSpeech> {
  const saidFailed = error instanceof TtsError && error.kind === 'generation_failed';
  if (started !== undefined && !saidFailed) {
    try {
      return await deps.resume(started.generationId, started.at, options.signal);
    } catch (pollError) {
      const gone =
        pollError instanceof TtsError &&
        (pollError.kind === 'generation_failed' || pollError.kind === 'not_found');
      if (!gone) throw pollError;
    }
  }
  return deps.generate(options);
}

/**
 * Voice requests under way, by request, from before they are submitted: an identical one made
 * meanwhile joins it instead of paying a second generation, and plays its file once it exists
 * (the stream's backup file; an identical request is queued behind it anyway). Each joiner
 * hears of the shared generation's id, so it is journalled (and not charged) as with
 * {@link SharedGenerations}; when the one joined fails or is cancelled, the joiner makes its own.
 */
export class SharedStreams {
  readonly #running = new Map<string, Leader>();

  /** The identical request under way for `key`, if any (asked and led without an await between). */
  find(key: string): Leader | undefined {
    return this.#running.get(key);
  }

  /**
   * The file of `leader`'s speech once it finished; undefined when it failed or was cancelled
   * (the caller then makes its own).
   */
  async join(leader: Leader, options: LiveOptions): Promise<FinishedSpeech | undefined> {
    try {
      const generationId = await untilAborted(leader.submitted.promise, options.signal);
      await options.onSubmitted?.(generationId);
      options.onProgress?.({ stage: 'generating', generationId });
      const finished = await untilAborted(leader.finished.promise, options.signal);
      return { ...finished, cached: true };
    } catch (error) {
      if (options.signal?.aborted) throw error;
      return undefined;
    }
  }

  /**
   * Makes the speech for `key` with `make`, open to identical requests from now on: `make` is
   * handed options whose `onSubmitted` also tells them the generation's id.
   */
  async lead(
    key: string,
    options: LiveOptions,
    make: (options: LiveOptions) => Promise<VoiceSpeech>,
  ): Promise<VoiceSpeech> {
    const leader: Leader = {
      submitted: Promise.withResolvers<string>(),
      finished: Promise.withResolvers<FinishedSpeech>(),
    };
    // Nobody may be listening: these settle for joiners only.
    leader.submitted.promise.catch(() => undefined);
    leader.finished.promise.catch(() => undefined);
    this.#running.set(key, leader);
    const done = (): void => {
      if (this.#running.get(key) === leader) this.#running.delete(key);
    };
    try {
      const speech = await make({
        ...options,
        onSubmitted: async (generationId, cost) => {
          leader.submitted.resolve(generationId);
          await options.onSubmitted?.(generationId, cost);
        },
      });
      // Made without a submit of its own (nothing to journal): joiners take its id from here.
      leader.submitted.resolve(
        speech.kind === 'file' ? speech.finished.generationId : speech.generationId,
      );
      const finished = speech.kind === 'file' ? Promise.resolve(speech.finished) : speech.finished;
      finished.then(leader.finished.resolve, leader.finished.reject);
      finished.then(done, done);
      return speech;
    } catch (error) {
      leader.submitted.reject(error);
      leader.finished.reject(error);
      done();
      throw error;
    }
  }
}

/** A request others may join: its generation's id once submitted, its file once finished. */
export interface Leader {
  readonly submitted: PromiseWithResolvers<string>;
  readonly finished: PromiseWithResolvers<FinishedSpeech>;
}
