/**
 * The seam between a key's {@link TtsClient} (budgets, polling, caches) and one version of the
 * vendor's wire protocol: v2's `TtsApi`, or v3's `TtsApiV3`. Both speak the bot's own words
 * (`advance`, `Generating`/`Completed`/`Failed`, typed errors); only the protocol knows paths,
 * field names and how the API counts requests.
 */
import type { Readable } from 'node:stream';
import type { GenerationCost } from './cost.ts';
import type { GenerationRecord, Model, SpeechRequest, Voice } from './types.ts';

/** Raw PCM as a live stream sends it: sample format, rate and channels. */
export interface PcmFormat {
  readonly format: 'f32le';
  readonly sampleRate: number;
  readonly channels: number;
}

/** What a live stream tells its caller while it starts. */
export interface StreamHooks {
  readonly signal?: AbortSignal | undefined;
  /** The API accepted the request as generation `generationId` (awaited before the first chunk is handed over). */
  readonly onStarted?:
    | ((generationId: string, cost?: GenerationCost) => Promise<void> | void)
    | undefined;
}

/** A generation streaming its audio, handed over once its first chunk arrived. */
export interface LiveStream {
  readonly generationId: string;
  readonly format: PcmFormat;
  /**
   * The PCM, the chunks so far buffered, the rest as it comes; it ends after the last chunk,
   * or is destroyed with a TtsError when the stream fails mid-way.
   */
  readonly pcm: Readable;
  /** The backup file's address once the stream completed; rejects as `pcm` fails. */
  readonly completed: Promise<string>;
}

/** Which of a request's controls the API honours, per model (v3 moved some, dropped others). */
export interface SpeechControls {
  /** `speed` is applied with `model`. */
  speed(model: Model): boolean;
  /** `emotion` is applied with `model`. */
  emotion(model: Model): boolean;
  /**
   * The languages `model` can be asked to speak (ISO 639-1, `SpeechRequest.language`); none
   * where the API takes no language (v2). Optional: absent means none.
   */
  languages?(model: Model): readonly string[];
}

/** v2's controls: speed with both models, emotions with `advance`. */
export const V2_CONTROLS: SpeechControls = {
  speed: () => true,
  emotion: (model) => model === 'advance',
};

/** The API calls of one key, in the bot's terms, each already within the key's budgets. */
export interface TtsProtocol {
  /** The controls it honours; v2's when absent. */
  readonly controls?: SpeechControls | undefined;
  /** Submits a generation and returns its id once accepted. */
  submit(request: SpeechRequest, signal?: AbortSignal): Promise<string>;
  /** The bill of a generation this key submitted, once (v3); absent where the API bills no money. */
  takeCost?(generationId: string): GenerationCost | undefined;
  /** What a request will cost, at the price last seen (v3); undefined before any was seen. */
  predictCost?(request: Pick<SpeechRequest, 'model' | 'text'>): GenerationCost | undefined;
  /** The current record of a generation. */
  status(generationId: string, signal?: AbortSignal): Promise<GenerationRecord>;
  /** Every voice the account may use with `model`. */
  voices(model: Model, signal?: AbortSignal): Promise<Voice[]>;
  /** True when the service answers. */
  health(signal?: AbortSignal): Promise<boolean>;
  /**
   * Streams a generation live, resolving at its first audio chunk; rejects with a TtsError
   * (carrying the generation id when one was started) if it fails before. Absent where the
   * API or the configuration does not stream.
   */
  readonly stream?:
    | ((request: SpeechRequest, hooks: StreamHooks) => Promise<LiveStream>)
    | undefined;
}
