/** Emulator options, default users and their resolution into one settled config. */
import type { RequestLogEntry } from './stats.ts';
import type { Plan, V3PlanLimits } from './v3/limits.ts';
import type { Model, VoiceRecord } from './voices.ts';
import { customVoice } from './voices.ts';

/** An account the emulator accepts: its key, plan, balance and cloned voices. */
export interface EmulatorUser {
  userId: string;
  apiKey: string;
  plan: 'free' | 'paid';
  /** Starting credits; defaults to DEFAULT_CREDITS. */
  credits?: number;
  /** Cloned voices, listed and usable only on `advance` and only by this user. */
  customVoices?: readonly VoiceRecord[];
}

/** Where the audio address is reported: the v2 docs use `audio_url`, a later revision `url`. */
export type UrlField = 'audio_url' | 'url' | 'both';
/** Bytes actually served; the address extension stays `mediaExtension` either way. */
export type AudioFormat = 'wav' | 'mp3' | 'ogg';
/** Speech source: espeak-ng when installed (`auto`), or a sine tone. */
export type SynthMode = 'auto' | 'espeak' | 'tone';

/** Everything a test or the CLI may tune; every field is optional. */
export interface EmulatorOptions {
  /** API server port; 0 (default) picks a free port. */
  port?: number;
  /** Media server port; 0 (default) picks a free port. */
  mediaPort?: number;
  /** Host to bind both servers to; default 127.0.0.1. */
  host?: string;
  users?: readonly EmulatorUser[];
  /** Rate-limit windows are real length times this (0.001 makes a minute 60 ms). Default 1. */
  timeScale?: number;
  /** Time it takes to generate audio, in ms. Default 800 + 15/char on base, double on advance. */
  generationMs?: (model: Model, textLength: number) => number;
  urlField?: UrlField;
  /** Key holding the id in the POST /tts answer (`id` is read by the SDKs too). Default generation_id. */
  idField?: 'generation_id' | 'id' | 'both';
  /** Status of a successful POST /tts; the vendor sends 201, the SDKs accept 200. */
  submitStatus?: 200 | 201;
  audioFormat?: AudioFormat;
  /** Extension of media addresses, independent of the bytes. Default `.wav`. */
  mediaExtension?: string;
  synth?: SynthMode;
  /** Seconds of tone per character when the tone stands in for speech (default 0.06, like speech). */
  toneSecondsPerChar?: number;
  /** Send `Retry-After` (seconds) on 429; the vendor does not promise it. Default false. */
  retryAfter?: boolean;
  /** How long generations are kept before they answer 404. Default 24 h (not scaled). */
  retentionMs?: number;
  /** Request-log entries kept (oldest dropped first). Default 10,000. */
  maxLogEntries?: number;
  /** Clock for rate limits, records and the request log. Default Date.now. */
  now?: () => number;
  espeakPath?: string;
  ffmpegPath?: string;
  /** Called after each request (API and media) is answered or dropped. */
  onRequest?: (entry: RequestLogEntry) => void;
  /** v3 limits per plan, replacing the defaults (`V3_LIMITS`: free 120/min + 5 jobs, paid 240 + 20). */
  v3Limits?: Partial<Record<Plan, V3PlanLimits>>;
  /** v3's price of a `base` token in US dollars (`advanced` costs four times as much). Default 0.000001. */
  usdPerToken?: number;
  /** How long a v3 job stays `IN_QUEUE` before `GENERATING`, in ms. Default 150. */
  queueMs?: number;
  /** Audio in each binary frame of a v3 stream, in ms. Default 200. */
  streamChunkMs?: number;
  /** How many times faster than real time a v3 stream sends its audio. Default 2. */
  streamSpeed?: number;
  /**
   * A v3 stream's pace is the service's to choose: each chunk's interval is stretched or
   * shortened at random by up to this fraction (0.3: 70 % to 130 %). Default 0.
   */
  streamJitter?: number;
  /** A pause of this many ms half-way through each v3 stream, as under load. Default 0. */
  streamPauseMs?: number;
}

/** Starting balance of a user without `credits`: large enough never to run out by accident. */
export const DEFAULT_CREDITS = 100_000_000;

/** First default user: paid plan, no custom voices. */
export const USER_ONE = {
  userId: 'user_1',
  apiKey: 'adx_test_key_one_0001',
  plan: 'paid',
} as const satisfies EmulatorUser;

/** Second default user: free plan, with two cloned voices (advance only). */
export const USER_TWO = {
  userId: 'user_2',
  apiKey: 'adx_test_key_two_0002',
  plan: 'free',
  customVoices: [
    customVoice('adv_user_clone_abc', 'My Custom Voice', 'Male'),
    customVoice('adv_user_clone_xyz', 'Narrator Clone', 'Female'),
  ],
} as const satisfies EmulatorUser;

/** Third default user: paid plan with a tiny balance, for 402 tests. */
export const USER_POOR = {
  userId: 'user_3',
  apiKey: 'adx_test_key_poor_0003',
  plan: 'paid',
  credits: 100,
} as const satisfies EmulatorUser;

/** The users an emulator accepts when `users` is not given. */
export const DEFAULT_USERS: readonly EmulatorUser[] = [USER_ONE, USER_TWO, USER_POOR];

/** Default generation time: 800 ms + 15 ms per character on base, twice that on advance. */
export function defaultGenerationMs(model: Model, textLength: number): number {
  const base = 800 + 15 * textLength;
  return model === 'advance' ? base * 2 : base;
}

/** Options with every default filled in. */
export type ResolvedOptions = Required<EmulatorOptions>;

/** Fills defaults and rejects options that cannot work. */
export function resolveOptions(options: EmulatorOptions = {}): ResolvedOptions {
  const resolved: ResolvedOptions = {
    port: 0,
    mediaPort: 0,
    host: '127.0.0.1',
    users: DEFAULT_USERS,
    timeScale: 1,
    generationMs: defaultGenerationMs,
    urlField: 'audio_url',
    idField: 'generation_id',
    submitStatus: 201,
    audioFormat: 'wav',
    mediaExtension: '.wav',
    synth: 'auto',
    toneSecondsPerChar: 0.06,
    retryAfter: false,
    retentionMs: 24 * 60 * 60 * 1000,
    maxLogEntries: 10_000,
    now: Date.now,
    espeakPath: 'espeak-ng',
    ffmpegPath: 'ffmpeg',
    onRequest: () => undefined,
    v3Limits: {},
    usdPerToken: 0.000001,
    queueMs: 150,
    streamChunkMs: 200,
    streamSpeed: 2,
    streamJitter: 0,
    streamPauseMs: 0,
    ...stripUndefined(options),
  };
  if (!(resolved.timeScale > 0)) throw new RangeError('timeScale must be a positive number');
  if (!(resolved.streamSpeed > 0)) throw new RangeError('streamSpeed must be a positive number');
  if (!(resolved.streamChunkMs > 0))
    throw new RangeError('streamChunkMs must be a positive number');
  const keys = new Set(resolved.users.map((u) => u.apiKey));
  if (keys.size !== resolved.users.length) throw new Error('users must have distinct API keys');
  return resolved;
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
