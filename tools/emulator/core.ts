/** Emulator state shared by the API and media servers, and the generation life cycle. */
import { randomUUID } from 'node:crypto';
import type { SpeechRequest, Synthesizer } from './audio.ts';
import { FaultBook } from './faults.ts';
import { Scheduler } from './http.ts';
import { RateLimiter } from './limits.ts';
import { DEFAULT_CREDITS, type EmulatorUser, type ResolvedOptions } from './options.ts';
import { Stats } from './stats.ts';
import { type Generation, GenerationStore } from './store.ts';
import type { TtsRequest } from './validate.ts';

/** Everything the request handlers read or change. */
export class Core {
  readonly options: ResolvedOptions;
  readonly synth: Synthesizer;
  readonly faults = new FaultBook();
  readonly scheduler = new Scheduler();
  readonly limiter: RateLimiter;
  readonly stats: Stats;
  readonly store: GenerationStore;
  readonly #byKey: Map<string, EmulatorUser>;
  readonly #credits = new Map<string, number>();
  /** Set once the media server listens. */
  mediaOrigin = '';

  constructor(options: ResolvedOptions, synth: Synthesizer) {
    this.options = options;
    this.synth = synth;
    this.limiter = new RateLimiter(options.timeScale, options.now);
    this.stats = new Stats(options.maxLogEntries, options.onRequest);
    this.store = new GenerationStore(options.retentionMs, options.now);
    this.#byKey = new Map(options.users.map((u) => [u.apiKey, u]));
    for (const u of options.users) this.#credits.set(u.userId, u.credits ?? DEFAULT_CREDITS);
  }

  /** The user owning an API key, if any. */
  userByKey(apiKey: string | undefined): EmulatorUser | undefined {
    return apiKey === undefined ? undefined : this.#byKey.get(apiKey);
  }

  /** Remaining credits of a user. */
  balanceOf(userId: string): number | undefined {
    return this.#credits.get(userId);
  }

  /** Sets a user's remaining credits. */
  setBalance(userId: string, credits: number): void {
    if (!this.#credits.has(userId)) throw new Error(`unknown user ${userId}`);
    this.#credits.set(userId, credits);
  }

  /** Takes `cost` credits from a user; false (and nothing taken) when the balance is short. */
  charge(userId: string, cost: number): boolean {
    const balance = this.#credits.get(userId) ?? 0;
    if (balance < cost) return false;
    this.#credits.set(userId, balance - cost);
    return true;
  }

  /** Address of a generation's audio on the media server. */
  audioUrl(id: string): string {
    return `${this.mediaOrigin}/audio/${id}${this.options.mediaExtension}`;
  }

  /** Creates a generation in state `Generating` and starts producing its audio. */
  submit(user: EmulatorUser, request: TtsRequest): Generation {
    const gen: Generation = {
      id: `${request.model}_${randomUUID()}`,
      userId: user.userId,
      status: 'Generating',
      text: request.text,
      voiceId: request.voice.voice_id,
      model: request.model,
      createdAt: this.options.now(),
    };
    this.store.add(gen);
    void this.#generate(gen, request);
    return gen;
  }

  async #generate(gen: Generation, request: TtsRequest): Promise<void> {
    const fault = this.faults.takeGeneration();
    if (fault?.kind === 'never-complete') return;
    const delay = this.scheduler.sleep(this.options.generationMs(request.model, request.chars));
    if (fault?.kind === 'fail') {
      if (await delay)
        Object.assign(gen, { status: 'Failed', error: fault.error ?? 'Generation failed' });
      return;
    }
    const speech: SpeechRequest = {
      text: request.text,
      gender: request.voice.gender,
      accent: request.voice.accent,
      speed: request.speed,
      ...(request.emotion === undefined ? {} : { emotion: request.emotion }),
    };
    try {
      const [audio, elapsed] = await Promise.all([this.synth.synthesize(speech), delay]);
      if (!elapsed) return;
      gen.audio = audio;
      gen.status = 'Completed';
      gen.completedAt = this.options.now();
    } catch (error) {
      if (this.scheduler.closed) return;
      gen.status = 'Failed';
      gen.error = `Audio synthesis failed: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
}
