import { TtsApi } from './api.ts';
import { type Audio, downloadAudio, type MediaPolicy, openAudio } from './audio.ts';
import type { LimitUsage } from './budget.ts';
import type { TtsClientOptions } from './client-options.ts';
import type { GenerationCost } from './cost.ts';
import { TtsError, unsendableKeyError } from './errors.ts';
import { API_PRIOR } from './estimator.ts';
import { isSendableKey, keyId } from './key.ts';
import { keyHttp } from './key-http.ts';
import { LearnedTimes } from './learned-times.ts';
import { liveSpeech, SharedStreams, type VoiceSpeech } from './live.ts';
import { PollScheduler } from './poller.ts';
import { type SpeechControls, type TtsProtocol, V2_CONTROLS } from './protocol.ts';
import { ServedAddresses } from './served-addresses.ts';
import { type GenerateOptions, SharedGenerations } from './shared-generation.ts';
import { speechCacheKey } from './speech-cache.ts';
import type {
  FinishedGeneration,
  Model,
  Operation,
  PendingGeneration,
  SpeechRequest,
  Voice,
} from './types.ts';
import { VoiceCache } from './voice-cache.ts';

/**
 * The TTS API as seen by one key: rate-limited calls, a shared status
 * poller, and a cached voice list. Obtain it from {@link TtsClients}; it is
 * the only way the bot reaches the API.
 */
export class TtsClient {
  readonly keyId: string;
  readonly #api: TtsProtocol;
  readonly #poller: PollScheduler;
  /** How long this key's generations take, from the store at first use, then as polled. */
  readonly #learned: LearnedTimes;
  readonly #voices: VoiceCache;
  readonly #options: TtsClientOptions;
  readonly #media: MediaPolicy;
  /** False for a key an HTTP header cannot carry: every API call then fails at once. */
  readonly #sendable: boolean;
  /** Generations waiting for their turn to be submitted, oldest first (they pass the FIFO gate in this order). */
  readonly #waiting = new Set<object>();
  /** Audio addresses that came from the cache, so a 404 on one is generated afresh as it was served. */
  readonly #served = new ServedAddresses();
  readonly #shared = new SharedGenerations();
  readonly #sharedStreams = new SharedStreams();
  /** Calls under way; a client with none may be dropped by {@link TtsClients}. */
  #calls = 0;

  constructor(apiKey: string, options: TtsClientOptions) {
    this.keyId = keyId(apiKey);
    this.#sendable = isSendableKey(apiKey);
    this.#options = options;
    const { http, media } = keyHttp(apiKey, this.keyId, options);
    this.#media = media;
    const { metrics } = options;
    this.#api = options.protocol === undefined ? new TtsApi(http) : options.protocol(http);
    this.#learned = new LearnedTimes(this.keyId, {
      prior: options.learning?.prior ?? API_PRIOR,
      store: options.learning?.store,
      clock: options.clock,
      onError: options.onBackgroundError,
    });
    this.#poller = new PollScheduler({
      poll: (id) => this.#api.status(id),
      clock: options.clock,
      estimator: this.#learned.estimator,
      deadlineMs: options.pollDeadlineMs,
      minIntervalMs: options.pollIntervalMs.min,
      maxIntervalMs: options.pollIntervalMs.max,
      onTransientError: options.onBackgroundError,
      ...(metrics === undefined ? {} : { onNoticed: (lagMs) => metrics.noticeLag(lagMs / 1000) }),
    });
    this.#voices = new VoiceCache({
      load: (model) => this.#api.voices(model),
      clock: options.clock,
      ttlMs: options.voicesTtlMs,
      onRefreshError: options.onBackgroundError,
    });
  }

  /** True while a call of this client is under way. */
  get busy(): boolean {
    return this.#calls > 0;
  }

  /** The voices for `model`, from the cache when fresh. */
  async voices(model: Model): Promise<Voice[]> {
    this.#checkKey();
    return this.#counted(() => this.#voices.get(model));
  }

  /** Checks the key with a real GET /voices call (and refreshes the cache). */
  async verify(model: Model = 'base'): Promise<Voice[]> {
    this.#checkKey();
    return this.#counted(() => this.#voices.refresh(model));
  }

  /** Submits a generation and returns its id as soon as the API accepted it. */
  async submit(request: SpeechRequest, signal?: AbortSignal): Promise<string> {
    this.#checkKey();
    return this.#counted(() => this.#api.submit(request, signal));
  }

  /**
   * Waits for a submitted generation to complete (polling shares the key's status budget); what
   * its polls see is learned only with `learn` (see {@link PendingGeneration}).
   */
  async waitFor(generation: PendingGeneration, signal?: AbortSignal): Promise<string> {
    this.#checkKey();
    return this.#counted(async () => {
      await this.#learned.restored();
      return this.#poller.track(generation, signal);
    });
  }

  /** Writes what this key's polls learned, without waiting for its turn (before the store closes). */
  saveLearned(): Promise<void> {
    return this.#learned.flush();
  }

  /**
   * The whole generation, reporting its stages: the audio of an identical
   * recent request when the cache has it (no submit, no quota), the generation
   * of an identical request still under way, else submit and wait.
   * `onSubmitted` is awaited once the API accepted the request, before polling
   * starts (e.g. to journal the id).
   */
  async generate(
    request: SpeechRequest,
    options: GenerateOptions = {},
  ): Promise<FinishedGeneration> {
    this.#checkKey();
    return this.#counted(() => this.#generateCached(request, options));
  }

  async #generateCached(
    request: SpeechRequest,
    options: GenerateOptions,
  ): Promise<FinishedGeneration> {
    // Without a cache nothing is awaited here, so progress is reported in the same turn.
    if (!this.#options.cache?.enabled) return this.#generate(request, options);
    const cached = await this.#cached(request, options);
    if (cached !== undefined) return cached;
    const key = speechCacheKey(this.keyId, request);
    return this.#shared.run(key, options, (own) => this.#generate(request, own));
  }

  /** Submits and waits, with no cache. */
  async #generate(request: SpeechRequest, options: GenerateOptions): Promise<FinishedGeneration> {
    const { signal, onProgress, onSubmitted } = options;
    const ticket = {};
    this.#waiting.add(ticket);
    // Read while the request is submitted (it never rejects); polling waits for it.
    void this.#learned.restored();
    let generationId: string;
    try {
      onProgress?.({
        stage: 'waiting-for-budget',
        ahead: () => [...this.#waiting].indexOf(ticket),
      });
      generationId = await this.submit(request, signal);
    } finally {
      this.#waiting.delete(ticket);
    }
    const submittedAt = this.#options.clock.now();
    await onSubmitted?.(generationId, this.#api.takeCost?.(generationId));
    onProgress?.({ stage: 'generating', generationId });
    // Timed from its own accepted submit, here: what its polls see is the service's work.
    return this.resume({ generationId, request, submittedAt, learn: true }, signal);
  }

  /**
   * What `request` will cost in money at the price last seen for its model (v3); undefined on v2
   * (which bills no money) and before any generation of the model was billed.
   */
  predictCost(request: Pick<SpeechRequest, 'model' | 'text'>): GenerationCost | undefined {
    return this.#api.predictCost?.(request);
  }

  /** True where the API bills each generation in money (v3). */
  get billsMoney(): boolean {
    return this.#api.predictCost !== undefined;
  }

  /** Which of a request's controls (speed, emotion) the API honours, per model. */
  get controls(): SpeechControls {
    return this.#api.controls ?? V2_CONTROLS;
  }

  /** True when voice speech streams live ({@link live}); false where it is submitted and polled. */
  get streams(): boolean {
    return this.#api.stream !== undefined;
  }

  /**
   * Speech for a voice item: from the cache, else streamed live where the API streams (the
   * backup file then goes into the cache), else as {@link generate}. `onSubmitted` is awaited
   * once the API accepted the request, before any audio is handed over.
   */
  async live(request: SpeechRequest, options: GenerateOptions = {}): Promise<VoiceSpeech> {
    this.#checkKey();
    const stream = this.#api.stream;
    if (stream === undefined)
      return { kind: 'file', finished: await this.generate(request, options) };
    // The cache first: a hit costs nothing, so it is never shared as a generation.
    const cached = await this.#cached(request, options);
    if (cached !== undefined) return { kind: 'file', finished: cached };
    const key = speechCacheKey(this.keyId, request);
    const leader = this.#sharedStreams.find(key);
    const joined = leader && (await this.#sharedStreams.join(leader, options));
    if (joined) {
      this.#served.serve(joined.audioUrl, request, options);
      return { kind: 'file', finished: joined };
    }
    return this.#sharedStreams.lead(key, options, (own) =>
      this.#counted(() =>
        liveSpeech(own, {
          clock: this.#options.clock,
          // Looked up above, before it could be shared.
          lookup: async () => undefined,
          stream: (hooks) => stream(request, hooks),
          // Timed from the stream's start, its end comes at the stream's sending pace (half
          // the speech's pace on a slow service), not after a submitted generation's work.
          resume: (generationId, streamStartedAt, signal) =>
            this.resume(
              { generationId, request, submittedAt: streamStartedAt, learn: false },
              signal,
            ),
          generate: (own) => this.generate(request, own),
          remember: async (generation) =>
            this.#options.cache?.remember(this.keyId, request, generation),
          onFallback: this.#options.onStreamFallback,
        }),
      ),
    );
  }

  /** The audio of an identical recent request when the cache has it (no submit, no quota). */
  async #cached(
    request: SpeechRequest,
    options: GenerateOptions,
  ): Promise<FinishedGeneration | undefined> {
    const cache = this.#options.cache;
    if (!cache?.enabled) return undefined;
    const cached = await cache.lookup(this.keyId, request);
    options.signal?.throwIfAborted();
    if (cached === undefined) return undefined;
    this.#options.metrics?.cacheHit();
    this.#served.serve(cached.audioUrl, request, options);
    return { generationId: cached.generationId, audioUrl: cached.audioUrl, cached: true };
  }

  /**
   * Waits for a generation submitted earlier (possibly by a previous run of
   * the bot) without submitting it again, and keeps its audio in the cache.
   * `learn`: whether `submittedAt` is its own submit's, on this clock (see {@link PendingGeneration}).
   */
  async resume(
    generation: {
      generationId: string;
      request: SpeechRequest;
      submittedAt: number;
      learn: boolean;
    },
    signal?: AbortSignal,
  ): Promise<FinishedGeneration> {
    const { generationId, request, submittedAt, learn } = generation;
    const audioUrl = await this.waitFor(
      { generationId, model: request.model, textLength: request.text.length, submittedAt, learn },
      signal,
    );
    await this.#options.cache?.remember(this.keyId, request, {
      generationId,
      audioUrl,
      submittedAt,
    });
    return { generationId, audioUrl };
  }

  /**
   * Downloads finished audio (only from the configured media origins). A
   * cached address that answers 404 is dropped and the speech generated afresh.
   */
  async download(audioUrl: string, signal?: AbortSignal): Promise<Audio> {
    try {
      return await downloadAudio(audioUrl, this.#media, signal);
    } catch (error) {
      const fresh = await this.#regenerateGone(audioUrl, error, signal);
      return downloadAudio(fresh, this.#media, signal);
    }
  }

  /** Opens finished audio as a stream, for playback that starts before the download ends (404 as in {@link download}). */
  async stream(audioUrl: string, signal?: AbortSignal): ReturnType<typeof openAudio> {
    try {
      return await openAudio(audioUrl, this.#media, signal);
    } catch (error) {
      const fresh = await this.#regenerateGone(audioUrl, error, signal);
      return openAudio(fresh, this.#media, signal);
    }
  }

  /**
   * Rethrows `error` unless it is a 404 on an address from the cache; then forgets it and
   * generates anew, held and recorded as the request it was served to (its `holdAgain` and
   * `onSubmitted`): a regeneration is spent like any other.
   */
  async #regenerateGone(audioUrl: string, error: unknown, signal?: AbortSignal): Promise<string> {
    const served = this.#served.get(audioUrl);
    if (!(error instanceof TtsError && error.kind === 'not_found') || served === undefined) {
      throw error;
    }
    this.#served.forget(audioUrl);
    const { request, options } = served;
    const { onSubmitted, holdAgain } = options;
    await this.#options.cache?.forget(this.keyId, request);
    const release = await holdAgain?.();
    try {
      const fresh = await this.generate(request, {
        ...(signal === undefined ? {} : { signal }),
        ...(onSubmitted === undefined ? {} : { onSubmitted }),
      });
      return fresh.audioUrl;
    } finally {
      release?.();
    }
  }

  /** Health check of the service. */
  async health(signal?: AbortSignal): Promise<boolean> {
    this.#checkKey();
    return this.#api.health(signal);
  }

  /** How much of each limit of `op` this key has used. */
  usage(op: Operation): Promise<LimitUsage[]> {
    return this.#options.budgets.usage(this.keyId, op, this.#options.clock.now());
  }

  #checkKey(): void {
    if (!this.#sendable) throw unsendableKeyError();
  }

  async #counted<T>(call: () => Promise<T>): Promise<T> {
    this.#calls++;
    try {
      return await call();
    } finally {
      this.#calls--;
    }
  }
}
