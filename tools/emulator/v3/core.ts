/** v3 state beside the v2 core: records, limits, billing and the asynchronous generation life. */
import { randomBytes } from 'node:crypto';
import type { SpeechRequest } from '../audio.ts';
import type { Core } from '../core.ts';
import type { EmulatorUser } from '../options.ts';
import { v2ModelOf } from './catalog.ts';
import {
  concurrencyDetail,
  type TakeResult,
  V3_LIMITS,
  type V3PlanLimits,
  WindowLimiter,
} from './limits.ts';
import { tokensFor, transition, type V3Generation, V3Store } from './records.ts';
import type { V3Refusal, V3Request } from './validate.ts';

/** Credits of the shared balance per token: a base token is four characters, as v2 bills. */
const CREDITS_PER_TOKEN = 4;

/** Everything the v3 handlers read or change; the v2 `Core` lends users, balance, audio and time. */
export class V3Core {
  readonly core: Core;
  readonly store: V3Store;
  readonly limiter: WindowLimiter;

  constructor(core: Core) {
    this.core = core;
    this.store = new V3Store(core.options.retentionMs, core.options.now);
    this.limiter = new WindowLimiter(core.options.timeScale, core.options.now);
  }

  /** A plan's limits, with the emulator's overrides. */
  limitsOf(user: EmulatorUser): V3PlanLimits {
    return this.core.options.v3Limits[user.plan] ?? V3_LIMITS[user.plan];
  }

  /** Counts one request of a key against its plan's window. */
  take(apiKey: string, user: EmulatorUser): TakeResult {
    return this.limiter.take(apiKey, this.limitsOf(user).perMinute);
  }

  /** Address of a v3 file on the media server; the extension follows `audio_format`. */
  audioUrl(gen: V3Generation): string {
    return `${this.core.mediaOrigin}/audio/${gen.id}.${gen.format}`;
  }

  /** Admits a checked request: concurrency cap, then balance. Creates it `IN_QUEUE` when admitted. */
  admit(
    user: EmulatorUser,
    request: V3Request,
    via: V3Generation['via'],
  ): V3Generation | V3Refusal {
    const cap = this.limitsOf(user).concurrent;
    if (this.store.activeOf(user.userId) >= cap)
      return { status: 429, detail: concurrencyDetail(cap) };
    const tokens = tokensFor(request.chars);
    const factor = request.model === 'advanced' ? 4 : 1;
    const credits = tokens * CREDITS_PER_TOKEN * factor;
    const usdPerToken = this.core.options.usdPerToken;
    const dollarCost = Number((tokens * usdPerToken * factor).toFixed(8));
    const balance = this.core.balanceOf(user.userId) ?? 0;
    if (!this.core.charge(user.userId, credits)) {
      const wallet = (balance * usdPerToken) / CREDITS_PER_TOKEN;
      const detail = `Insufficient balance. Cost: $${dollarCost.toFixed(4)}, wallet: $${wallet.toFixed(2)}, topup: $0.00`;
      return { status: 402, detail };
    }
    const gen: V3Generation = {
      id: `gen_${randomBytes(9).toString('hex')}`,
      userId: user.userId,
      status: 'IN_QUEUE',
      transitions: ['IN_QUEUE'],
      via,
      text: request.text,
      voiceId: request.voice.voice_id,
      voiceName: request.voice.name,
      model: request.model,
      format: request.format,
      ...(request.languageCode === undefined ? {} : { languageCode: request.languageCode }),
      tokens,
      dollarCost,
      credits,
      method: null,
      createdAt: this.core.options.now(),
    };
    this.store.add(gen);
    return gen;
  }

  /** Runs an admitted `POST /v3/tts` job: queue, generate, then complete or fail. */
  async run(gen: V3Generation, request: V3Request): Promise<void> {
    const { scheduler, faults, options } = this.core;
    const fault = faults.takeGeneration();
    if (!(await scheduler.sleep(options.queueMs))) return;
    this.move(gen, 'GENERATING');
    if (fault?.kind === 'never-complete') return;
    const delay = scheduler.sleep(options.generationMs(v2ModelOf(request.model), request.chars));
    if (fault?.kind === 'fail') {
      if (await delay) this.fail(gen, fault.error ?? 'Generation failed');
      return;
    }
    try {
      const [file, elapsed] = await Promise.all([this.render(request).then((r) => r.file), delay]);
      if (elapsed) this.complete(gen, file);
    } catch (error) {
      if (!scheduler.closed) this.fail(gen, `Audio synthesis failed: ${messageOf(error)}`);
    }
  }

  /** Renders a request: the WAV (the stream's source) and the file in its `audio_format`. */
  async render(request: V3Request): Promise<{ wav: Buffer; file: Buffer }> {
    const speech: SpeechRequest = {
      text: request.text,
      gender: request.voice.gender,
      accent: request.languageCode === 'b' ? 'British' : (request.voice.accent ?? 'American'),
      speed: request.model === 'base' ? request.speed : 1,
    };
    const wav = await this.core.synth.wav(speech);
    return { wav, file: await this.core.synth.encode(wav, request.format) };
  }

  /** Moves a generation on the emulator's clock. */
  move(gen: V3Generation, next: 'GENERATING'): void {
    transition(gen, next, this.core.options.now());
  }

  /** Ends a generation `COMPLETED` with its file. */
  complete(gen: V3Generation, file: Buffer): void {
    gen.audio = file;
    transition(gen, 'COMPLETED', this.core.options.now());
  }

  /** Ends a generation `FAILED` and gives its reserved credits back (`guides/pricing.mdx`). */
  fail(gen: V3Generation, message: string): void {
    gen.errorMessage = message;
    transition(gen, 'FAILED', this.core.options.now());
    const balance = this.core.balanceOf(gen.userId) ?? 0;
    this.core.setBalance(gen.userId, balance + gen.credits);
  }
}

/** The message of a thrown value. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
