/**
 * The vendor API version the end-to-end tests run against, and what differs between versions as
 * tests see the emulator. `vitest.config.ts` runs the files that exercise the API once per
 * version (project `v3` sets `TTS_E2E_API=v3`); the harnesses start the bot for that version.
 */
import { expect } from 'vitest';
import { maxConcurrent } from '../../bench/chat-heard.ts';
import type { TtsClientOptions } from '../../src/tts/index.ts';
import {
  type ApiEndpoint,
  type ApiVersion,
  downloaded,
  type Emulator,
  type EmulatorOptions,
  type EndpointName,
  heardGenerations,
  heardText,
  LIMITS,
  type Plan,
  type RequestLogEntry,
  V3_LIMITS,
  type V3PlanLimits,
  v3Generations,
} from '../../tools/emulator/index.ts';
import { botApiEnv } from '../../tools/local-stack/index.ts';
import { clientsFor } from '../tts/emulated.ts';
import { v3ClientsFor } from '../tts/v3-emulated.ts';

export type { ApiVersion } from '../../tools/emulator/index.ts';

/** What tests read of a generation in either version. */
export interface SpokenGeneration {
  readonly text: string;
  readonly voiceId: string;
  /** When it was submitted, on the emulator's clock. */
  readonly createdAt: number;
  /** Whether it has completed (v2 `Completed`, v3 `COMPLETED`). */
  readonly completed: boolean;
}

/** What a test needs to tell of one API version. */
export interface ApiUnderTest {
  readonly version: ApiVersion;
  /** The emulator's names of the submit, status and voices endpoints. */
  readonly submit: ApiEndpoint;
  readonly status: ApiEndpoint;
  readonly voices: ApiEndpoint;
  /** The bot's environment for this version against `emulator`. */
  env(emulator: Emulator): Record<string, string>;
  /**
   * The bot's environment for a key on `plan`: v3 caps concurrent generations per plan (the bot
   * assumes the smallest, 5, unless told); v2 has no such cap.
   */
  planEnv(emulator: Emulator, plan: Plan): Record<string, string>;
  /** The text a generation spoke, whichever version made it. */
  textOf(emulator: Emulator, generationId: string): string | undefined;
  /** The HTTP status of an accepted `POST` submission: v2 201, v3 200. */
  readonly acceptedStatus: number;
  /** How a Base model's generation id starts: v2 `base_`, v3 `gen_`. */
  readonly idPrefix: string;
  /**
   * `TTS_LIMITS` for the vendor's limits on a tenth of real time (an emulator with
   * `timeScale: 0.1`): v2's per-endpoint windows, v3's one request allowance.
   */
  readonly tenthLimits: string;
  /**
   * The key's daily generation allowance the bot assumes by default (the emulator's figure):
   * v2's 500; v3 has none (undefined), only a `request` allowance per minute.
   */
  readonly defaultDaily: number | undefined;
  /**
   * The per-minute allowance the bot assumes by default (the emulator's figures): v2's 20
   * submissions (`generate`), v3's 120 requests of every kind (`request`, the smallest plan's).
   */
  readonly defaultPerMinute: number;
  /**
   * The bot's environment for a test about a key allowed `daily` generations a day: v2's
   * `TTS_LIMITS` with the per-minute `generate` limit and a daily one of `daily`; v3 has no
   * daily allowance to set, so nothing (its default `request` allowance).
   */
  dailyEnv(daily: number): Record<string, string>;
  /** The daily generation limit the bot knows under `dailyEnv(daily)`: v2 `daily`, v3 none. */
  dailyUnder(daily: number): number | undefined;
  /**
   * For a load of a few dozen `/say` sized to cross a key's per-minute allowance, on a tenth of
   * real time (a "minute" of 6 s): the emulator's options, the bot's environment, the allowance
   * the bot is held to (`count` of `limitedRequests` per `windowMs`) and its cap on jobs at once.
   * v2: the vendor's limits, 20 submissions a minute, no job cap. v3: the bot is told 60 requests
   * a minute and 8 jobs at once, less than the emulator allows the paid plan (240 and 20), so
   * what the emulator's records show is the bot's own doing, not the emulator's refusals.
   */
  readonly tenthCrossing: {
    readonly emulator: EmulatorOptions;
    readonly env: Readonly<Record<string, string>>;
    readonly allowance: { readonly count: number; readonly windowMs: number };
    readonly concurrent: number | undefined;
  };
  /**
   * The requests of `userId`'s key that count against the per-minute allowance, oldest first:
   * v2's submissions (`generate`); v3's every call (submits, polls, voices, history, streams).
   */
  limitedRequests(emulator: Emulator, userId: string): RequestLogEntry[];
  /**
   * The most generations of `userId` running at one moment, from the emulator's records (v3:
   * submitted or streamed until completed or failed); undefined on v2, which keeps no such cap.
   */
  mostRunning(emulator: Emulator, userId: string): number | undefined;
  /** The text and voice of a generation, whichever version made it. */
  generation(emulator: Emulator, generationId: string): SpokenGeneration | undefined;
  /** The generations the bot polled, in order of their first poll. */
  polled(emulator: Emulator): string[];
  /**
   * The generations whose audio the bot used, in order: v2's downloads; with v3 every
   * generation of `userId`, since streamed speech is never downloaded.
   */
  spoken(emulator: Emulator, userId: string): string[];
  /**
   * The generations whose audio reached the bot whole, in the order it asked for them: v2's
   * downloads; with v3 also the streams it listened to until their last frame (a stream let go
   * when its chat turn was made again before its end is not heard; one let go after it is).
   * Each stream is placed at its start.
   */
  heard(emulator: Emulator): string[];
  /** Every generation the bot started, in order: v2's polled ones (each is polled); v3's, streams included. */
  generated(emulator: Emulator): string[];
  /**
   * The bot's requests for speech, oldest first: v2's `POST /tts`; v3's `POST /v3/tts` and
   * stream opens (a stream is a generation too).
   */
  submissions(emulator: Emulator): RequestLogEntry[];
  /**
   * Whether a submission started a generation: v2 201; v3 200, or a stream the API did not
   * refuse (not closed 1003 for a bad payload or 1008 for a key, limit or balance refusal).
   */
  accepted(entry: RequestLogEntry): boolean;
  /** A client factory for this version against `emulator` (no streaming: tests of resumption and files). */
  clients(
    emulator: Emulator,
    overrides?: Partial<TtsClientOptions>,
  ): Pick<ReturnType<typeof clientsFor>, 'clients'>;
}

/** The id in a logged request's `generation_id` query. */
function idIn(path: string): string {
  return new URL(path, 'http://x').searchParams.get('generation_id') ?? '';
}

function polledOn(emulator: Emulator, endpoint: EndpointName): string[] {
  const ids = emulator.requests.filter((r) => r.endpoint === endpoint).map((r) => idIn(r.path));
  return [...new Set(ids)].filter((id) => id !== '');
}

/** Log entries of `endpoints`, oldest first. */
function entriesOf(emulator: Emulator, ...endpoints: EndpointName[]): RequestLogEntry[] {
  return emulator.requests.filter((entry) => endpoints.includes(entry.endpoint));
}

/** A minute on a tenth of real time (the emulator's `timeScale: 0.1`). */
const TENTH_MINUTE_MS = 6000;

/** v2's limits on a tenth of real time, as the emulator's `timeScale: 0.1` has them. */
const V2_TENTH_LIMITS = 'generate=20/6s+500/8640s,status=60/6s,voices=10/6s,health=100/6s';

/** The emulator's per-minute `tts` limit of v2. */
function minuteOfEmulator(): number {
  const minute = LIMITS.tts.find((limit) => limit.windowMs === 60_000);
  if (minute === undefined) throw new Error('the emulator has no per-minute tts limit');
  return minute.count;
}

/** The emulator's daily `tts` limit of v2 (the longest window of at least a day). */
function dailyOfEmulator(): number | undefined {
  return LIMITS.tts.filter((limit) => limit.windowMs >= 86_400_000).at(-1)?.count;
}

/** What `tenthCrossing` tells the bot of v3's limits: low enough for 40 `/say` to cross both. */
const V3_CROSSING: V3PlanLimits = { perMinute: 60, concurrent: 8 };

/** v3's calls, each of which counts against the key's `request` allowance. */
const V3_CALLS: EndpointName[] = [
  'POST /v3/tts',
  'GET /v3/tts',
  'GET /v3/voices',
  'GET /v3/history',
  'WS /v3/tts/stream',
];

const V2: ApiUnderTest = {
  version: 'v2',
  submit: 'POST /v2/tts',
  status: 'GET /v2/status',
  voices: 'GET /v2/voices',
  env: (emulator) => botApiEnv(emulator, 'v2'),
  planEnv: () => ({}),
  textOf: (emulator, id) => heardText(emulator, 'v2', id)?.text,
  idPrefix: 'base_',
  tenthLimits: V2_TENTH_LIMITS,
  defaultDaily: dailyOfEmulator(),
  defaultPerMinute: minuteOfEmulator(),
  dailyEnv: (daily) => ({ TTS_LIMITS: `generate=${minuteOfEmulator()}/1m+${daily}/1d` }),
  dailyUnder: (daily) => daily,
  tenthCrossing: {
    emulator: { timeScale: 0.1 },
    env: { TTS_LIMITS: V2_TENTH_LIMITS },
    allowance: { count: minuteOfEmulator(), windowMs: TENTH_MINUTE_MS },
    concurrent: undefined,
  },
  limitedRequests: (emulator, userId) =>
    entriesOf(emulator, 'POST /v2/tts').filter((entry) => entry.userId === userId),
  mostRunning: () => undefined,
  generation: (emulator, id) => {
    const gen = emulator.generation(id);
    return gen && { ...gen, completed: gen.status === 'Completed' };
  },
  polled: (emulator) => polledOn(emulator, 'GET /v2/status'),
  spoken: (emulator) => downloaded(emulator),
  heard: (emulator) => heardGenerations(emulator, 'v2'),
  generated: (emulator) => polledOn(emulator, 'GET /v2/status'),
  submissions: (emulator) => entriesOf(emulator, 'POST /v2/tts'),
  acceptedStatus: 201,
  accepted: (entry) => entry.status === 201,
  clients: (emulator, overrides = {}) => clientsFor(emulator, overrides),
};

const V3: ApiUnderTest = {
  version: 'v3',
  submit: 'POST /v3/tts',
  status: 'GET /v3/tts',
  voices: 'GET /v3/voices',
  env: (emulator) => botApiEnv(emulator, 'v3'),
  planEnv: (emulator, plan) => ({
    TTS_CONCURRENT_JOBS: String(emulator.v3.limitsOf(plan).concurrent),
  }),
  textOf: (emulator, id) => heardText(emulator, 'v3', id)?.text,
  idPrefix: 'gen_',
  tenthLimits: `request=${V3_LIMITS.free.perMinute}/6s`,
  defaultDaily: undefined,
  defaultPerMinute: V3_LIMITS.free.perMinute,
  dailyEnv: () => ({}),
  dailyUnder: () => undefined,
  tenthCrossing: {
    emulator: { timeScale: 0.1 },
    env: {
      TTS_LIMITS: `request=${V3_CROSSING.perMinute}/6s`,
      TTS_CONCURRENT_JOBS: String(V3_CROSSING.concurrent),
    },
    allowance: { count: V3_CROSSING.perMinute, windowMs: TENTH_MINUTE_MS },
    concurrent: V3_CROSSING.concurrent,
  },
  limitedRequests: (emulator, userId) =>
    entriesOf(emulator, ...V3_CALLS).filter((entry) => entry.userId === userId),
  mostRunning: (emulator, userId) =>
    maxConcurrent(
      emulator.v3.generationsOf(userId).map((g) => ({ start: g.createdAt, end: g.completedAt })),
    ),
  generation: (emulator, id) => {
    const gen = emulator.v3.generation(id);
    return gen && { ...gen, completed: gen.status === 'COMPLETED' };
  },
  polled: (emulator) => polledOn(emulator, 'GET /v3/tts'),
  spoken: (emulator, userId) => emulator.v3.generationsOf(userId).map((g) => g.id),
  heard: (emulator) => heardGenerations(emulator, 'v3'),
  generated: (emulator) =>
    v3Generations(emulator)
      .sort((a, b) => a.createdAt - b.createdAt)
      .map((g) => g.id),
  submissions: (emulator) => entriesOf(emulator, 'POST /v3/tts', 'WS /v3/tts/stream'),
  acceptedStatus: 200,
  accepted: (entry) =>
    entry.endpoint === 'WS /v3/tts/stream'
      ? entry.status === 101 && entry.closeCode !== 1003 && entry.closeCode !== 1008
      : entry.status === 200,
  clients: (emulator, overrides = {}) => v3ClientsFor(emulator, { streaming: false, ...overrides }),
};

/**
 * The most timestamps within one window of `windowMs` (closed at both ends): what a sliding
 * window limit of that length would have counted at its fullest.
 */
export function mostInAnyWindow(times: readonly number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  let start = 0;
  for (const [end, time] of sorted.entries()) {
    while ((sorted[start] ?? time) < time - windowMs) start++;
    most = Math.max(most, end - start + 1);
  }
  return most;
}

/**
 * Asserts that `says` requests on `userId`'s key, run on the limits of `api.tenthCrossing`,
 * crossed its allowance (more than one window's worth) while no window held more, and, with v3,
 * that no moment held more of the key's generations than the bot's concurrent-job cap.
 */
export function expectAllowanceKept(emulator: Emulator, userId: string, says: number): void {
  const limited = api.limitedRequests(emulator, userId);
  const { allowance, concurrent } = api.tenthCrossing;
  expect(limited.length).toBeGreaterThan(allowance.count);
  expect(
    mostInAnyWindow(
      limited.map((r) => r.at),
      allowance.windowMs,
    ),
  ).toBeLessThanOrEqual(allowance.count);
  if (concurrent !== undefined) {
    expect(says).toBeGreaterThan(concurrent);
    expect(api.mostRunning(emulator, userId)).toBeLessThanOrEqual(concurrent);
  }
}

/** One version's view, for a test that is about that version whatever the run's. */
export function apiOf(version: ApiVersion): ApiUnderTest {
  return version === 'v3' ? V3 : V2;
}

/** The version this test run exercises: the vitest project's `TTS_E2E_API`, v2 when unset. */
export const api: ApiUnderTest = apiOf(process.env.TTS_E2E_API === 'v3' ? 'v3' : 'v2');

/** How many speech requests the bot made to `emulator` with the run's API version (see `submissions`). */
export function submissionCount(emulator: Emulator): number {
  return api.submissions(emulator).length;
}
