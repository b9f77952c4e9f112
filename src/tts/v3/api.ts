/**
 * v3 behind the bot's protocol seam: the same calls as v2's `TtsApi`, within v3's budgets (one
 * request allowance per key, learned from the answers' headers, and the concurrent-job cap),
 * plus the live stream.
 */
import type { BudgetStore } from '../budget.ts';
import type { GenerationCost } from '../cost.ts';
import { TtsError } from '../errors.ts';
import { RateGate } from '../gate.ts';
import { type ApiRequest, callApi, type HttpContext } from '../http.ts';
import type { LiveStream, StreamHooks, TtsProtocol } from '../protocol.ts';
import type { GenerationRecord, Model, SpeechRequest, Voice } from '../types.ts';
import { Bills } from './bills.ts';
import { type HeldJob, type JobSlots, JobTracker } from './jobs.ts';
import { openStream, streamUrl } from './stream.ts';
import { GuardedBudgets, LearnedWindow } from './window.ts';
import {
  parseRecord,
  parseVoicePage,
  V3_CONTROLS,
  VOICE_PAGE_SIZE,
  v3Body,
  v3Model,
} from './wire.ts';

/** What v3 adds to a client's settings. */
export interface V3Options {
  readonly budgets: BudgetStore;
  /** Where concurrent-job slots are held (Redis when shards share keys). */
  readonly jobs: JobSlots;
  /** The key's cap on concurrent generations (the smallest plan's 5 unless told). */
  readonly concurrentJobs: number;
  /** Longest wait for a request or job slot before failing with `quota_exhausted`. */
  readonly maxBudgetWaitMs: number;
  /** Voice items stream live (`TTS_STREAMING`). */
  readonly streaming: boolean;
  /** How long a job's slot is held past the last sign of it running; default 60 s. */
  readonly jobLeaseMs?: number | undefined;
  /** Failures of the job-slot store (the job then goes ahead unheld). */
  readonly onBackgroundError: (error: unknown) => void;
}

/** Default lease of a job slot: a job is polled every second or two, a stream renews on its chunks. */
const JOB_LEASE_MS = 60_000;

/** The protocol factory for v3: one {@link TtsApiV3} per key, from the key's HTTP context. */
export function v3Protocol(options: V3Options): (http: HttpContext) => TtsProtocol {
  return (http) => new TtsApiV3(http, options);
}

/** v3's endpoints for one key. The only way the bot reaches v3 with that key. */
export class TtsApiV3 implements TtsProtocol {
  readonly #http: HttpContext;
  readonly #window = new LearnedWindow();
  readonly #jobs: JobTracker;
  readonly #options: V3Options;
  readonly #bills: Bills;
  readonly stream: TtsProtocol['stream'];
  readonly controls = V3_CONTROLS;

  constructor(http: HttpContext, options: V3Options) {
    this.#options = options;
    this.#bills = new Bills(http.metrics);
    const { clock } = http;
    const gate = new RateGate({
      store: new GuardedBudgets(options.budgets, this.#window),
      clock,
      maxWaitMs: options.maxBudgetWaitMs,
    });
    this.#http = { ...http, gate, fetch: this.#observing(http.fetch) };
    this.#jobs = new JobTracker({
      slots: options.jobs,
      keyId: http.keyId,
      cap: options.concurrentJobs,
      clock,
      leaseMs: options.jobLeaseMs ?? JOB_LEASE_MS,
      maxWaitMs: options.maxBudgetWaitMs,
      onError: options.onBackgroundError,
      probe: async (generationId) => void (await this.status(generationId)),
    });
    this.stream = options.streaming ? (request, hooks) => this.#stream(request, hooks) : undefined;
  }

  /** POST /v3/tts, holding a job slot from now until the job is seen to end. */
  async submit(request: SpeechRequest, signal?: AbortSignal): Promise<string> {
    const job = await this.#jobs.acquire(signal);
    let answer: unknown;
    try {
      answer = await this.#call({
        op: 'request',
        method: 'POST',
        path: '/tts',
        body: v3Body(request),
        signal,
      });
    } catch (error) {
      this.#settleRefused(job, error);
      throw error;
    }
    const { generationId, cost } = parseRecord(answer, 'POST /v3/tts');
    this.#jobs.bind(job, generationId);
    this.#bills.billed(generationId, request, cost);
    return generationId;
  }

  /** The submit answer's bill of `generationId` (`tokens`, `dollar_cost`), once. */
  takeCost(generationId: string): GenerationCost | undefined {
    return this.#bills.take(generationId);
  }

  /** What `request` will cost at its model's price last seen by this key; undefined before. */
  predictCost(request: Pick<SpeechRequest, 'model' | 'text'>): GenerationCost | undefined {
    return this.#bills.predict(request);
  }

  /** GET /v3/tts: the record, in the poller's statuses; an ended job gives its slot back. */
  async status(generationId: string, signal?: AbortSignal): Promise<GenerationRecord> {
    let answer: unknown;
    try {
      answer = await this.#call({
        op: 'request',
        method: 'GET',
        path: '/tts',
        query: { generation_id: generationId },
        signal,
      });
    } catch (error) {
      // v3 answers 404 for an id it no longer knows (over 24 h) as for another account's.
      if (error instanceof TtsError && error.kind === 'not_found') this.#jobs.ended(generationId);
      throw error;
    }
    const found = parseRecord(answer, 'GET /v3/tts');
    if (found.cost !== undefined && (found.model === 'base' || found.model === 'advanced'))
      this.#bills.seen(found.model === 'advanced' ? 'advance' : 'base', found.cost);
    if (found.status === 'Generating') this.#jobs.running(generationId);
    else this.#jobs.ended(generationId);
    return found;
  }

  /** GET /v3/voices for `model`, page after page until one is short (v3 gives no total). */
  async voices(model: Model, signal?: AbortSignal): Promise<Voice[]> {
    const voices: Voice[] = [];
    for (let offset = 0; ; offset += VOICE_PAGE_SIZE) {
      const answer = await this.#call({
        op: 'request',
        method: 'GET',
        path: '/voices',
        query: { model: v3Model(model), limit: String(VOICE_PAGE_SIZE), offset: String(offset) },
        signal,
      });
      const page = parseVoicePage(answer);
      voices.push(...page);
      if (page.length < VOICE_PAGE_SIZE) return voices;
    }
  }

  /** v3 documents no health path: the smallest voice page stands in. */
  async health(signal?: AbortSignal): Promise<boolean> {
    await this.#call({
      op: 'request',
      method: 'GET',
      path: '/voices',
      query: { limit: '1' },
      signal,
    });
    return true;
  }

  /**
   * The live stream: counted as one request and one concurrent job (the docs are silent on
   * both; the `started` frame names a generation, so it is treated as one).
   */
  async #stream(request: SpeechRequest, hooks: StreamHooks): Promise<LiveStream> {
    const { signal } = hooks;
    const job = await this.#jobs.acquire(signal);
    let takenAt: number;
    try {
      takenAt = await this.#http.gate.acquire(this.#http.keyId, 'request', signal);
    } catch (error) {
      this.#jobs.release(job);
      throw error;
    }
    const { keyId, clock, gate } = this.#http;
    let renewedAt = clock.now();
    const leaseMs = this.#options.jobLeaseMs ?? JOB_LEASE_MS;
    let started = false;
    // Once per stream, answered or not: a stream that never got an answer (aborted before the
    // socket opened, a socket that could not be made) still ends its request in the window.
    let answered = false;
    const onAnswered = (status: number): void => {
      if (answered) return;
      answered = true;
      this.#http.metrics?.apiRequest('stream', status);
      this.#window.answered(undefined, clock.now());
      gate.answered(keyId, 'request', takenAt).catch(this.#options.onBackgroundError);
    };
    let live: LiveStream;
    try {
      live = await openStream(
        {
          url: streamUrl(this.#http.baseUrl),
          apiKey: this.#http.apiKey,
          timeoutMs: this.#http.timeoutMs,
          onAnswered,
          onChunk: () => {
            if (clock.now() - renewedAt < leaseMs / 3) return;
            renewedAt = clock.now();
            this.#jobs.renew(job);
          },
        },
        v3Body(request),
        {
          signal,
          onStarted: async (generationId) => {
            started = true;
            this.#jobs.bind(job, generationId);
            return hooks.onStarted?.(generationId, await this.#streamCost(generationId, request));
          },
        },
      );
    } catch (error) {
      onAnswered(0);
      this.#settleStream(job, error, started);
      throw error;
    }
    live.completed.then(
      () => this.#jobs.release(job),
      (error: unknown) => this.#settleStream(job, error, true),
    );
    return live;
  }

  /**
   * A stream's bill: its `started` frame carries none, so it is billed at the model's price last
   * seen; before any was, its record is read once (one request) to learn it.
   */
  async #streamCost(
    generationId: string,
    request: SpeechRequest,
  ): Promise<GenerationCost | undefined> {
    if (!this.#bills.knows(request.model)) {
      await this.status(generationId).catch((error: unknown) =>
        this.#options.onBackgroundError(error),
      );
    }
    return this.#bills.streamed(request);
  }

  /** A submit failed: a refusal started no job; a lost answer may have, so its lease runs out. */
  #settleRefused(job: HeldJob, error: unknown): void {
    const unknown = !(error instanceof TtsError) || ['timeout', 'network'].includes(error.kind);
    if (unknown) this.#jobs.abandon(job);
    else this.#jobs.release(job);
  }

  /**
   * A stream ended without `completed`: the server said why (an `error` frame, a refusal) or
   * nothing was started, and the slot is free; or it was cut or given up after `started`, and
   * the server may still be generating, so the lease runs out (a poll of its id ends it sooner).
   */
  #settleStream(job: HeldJob, error: unknown, started: boolean): void {
    const said = error instanceof TtsError && !['timeout', 'network'].includes(error.kind);
    if (said || !started) this.#jobs.release(job);
    else this.#jobs.abandon(job);
  }

  /**
   * One call within the key's budgets. v3's 403 means only "the plan may not use that model or
   * voice" (another account's id is 404), so it is told as the plan refusal it is.
   */
  async #call(request: ApiRequest): Promise<unknown> {
    try {
      return await callApi(this.#http, request);
    } catch (error) {
      if (error instanceof TtsError && error.status === 403 && error.kind === 'access_denied') {
        throw new TtsError('plan_required', error.message, { status: 403 });
      }
      throw error;
    }
  }

  /** The key's fetch, telling the learned window what each answer said of the allowance. */
  #observing(fetcher: typeof fetch): typeof fetch {
    return async (input, init) => {
      try {
        const response = await fetcher(input, init);
        this.#window.answered(response.headers, this.#http.clock.now());
        return response;
      } catch (error) {
        this.#window.answered(undefined, this.#http.clock.now());
        throw error;
      }
    };
  }
}
