/** The two models the API offers. */
export const MODELS = ['base', 'advance'] as const;
export type Model = (typeof MODELS)[number];

/** Emotions accepted by the `advance` model only. */
export const EMOTIONS = ['neutral', 'happy', 'sad', 'angry', 'surprised'] as const;
export type Emotion = (typeof EMOTIONS)[number];

/** A voice as listed by GET /voices. */
export interface Voice {
  readonly voiceId: string;
  readonly name: string;
  readonly gender: string;
  readonly accent: string;
  readonly free: boolean;
  readonly description: string;
}

/** What POST /tts is asked to generate. */
export interface SpeechRequest {
  readonly text: string;
  readonly voiceId: string;
  readonly model: Model;
  readonly speed?: number;
  readonly emotion?: Emotion;
  readonly temperature?: number;
  readonly topP?: number;
  /**
   * The language to read the text in (ISO 639-1, one of `SpeechControls.languages`): v3's
   * `language_code`. v2 takes no language and leaves it out.
   */
  readonly language?: string;
}

/** One generation's bill (v3): billed tokens and what they cost, in micro-dollars (1e-6 USD). */
export interface GenerationCost {
  readonly tokens: number;
  readonly micros: number;
}

/** Status of a generation; anything the client does not know is kept as text and treated as failure. */
export type GenerationStatus = 'Generating' | 'Completed' | 'Failed';

/** A generation record from GET /status, normalised (`url` or `audio_url`). */
export interface GenerationRecord {
  readonly generationId: string;
  readonly status: GenerationStatus | (string & {});
  readonly audioUrl: string | null;
  readonly model: string;
  readonly error: string | null;
  /** v3's bill of the generation (`tokens`, `dollar_cost`); v2 answers none. */
  readonly cost?: GenerationCost;
}

/** A generation submitted and not yet finished: what the poller needs to schedule it. */
export interface PendingGeneration {
  readonly generationId: string;
  readonly model: Model;
  readonly textLength: number;
  readonly submittedAt: number;
  /**
   * Whether its polls may teach the key's learned times: only when `submittedAt` is when the
   * API accepted this generation's own submit, on this process's clock, so that its completion
   * measures the service's work. Not a stream's generation polled after the stream failed (timed
   * from the stream's start: that is the stream's sending pace), nor one resumed from the
   * journal (submitted by an earlier run or another shard). See docs/polling-schedule.md.
   */
  readonly learn: boolean;
}

/**
 * The rate-limited operations of the API: v2 limits each endpoint on its own; v3 counts every
 * call of a key (streams included) in one allowance, `request`.
 */
export const OPERATIONS = ['generate', 'status', 'voices', 'health', 'request'] as const;
export type Operation = (typeof OPERATIONS)[number];

/** A generation that finished, with the address of its audio. */
export interface FinishedGeneration {
  readonly generationId: string;
  readonly audioUrl: string;
  /** True when the audio of an identical earlier request was reused (nothing was submitted). */
  readonly cached?: boolean;
}

/** Progress of one generation, for status displays. */
export type GenerationProgress =
  | {
      readonly stage: 'waiting-for-budget';
      /** Generations of this key still waiting to be submitted ahead of this one. */
      readonly ahead: () => number;
    }
  | { readonly stage: 'generating'; readonly generationId: string };
