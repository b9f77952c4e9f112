/**
 * The vendor API version the end-to-end tests run against, and what differs between versions as
 * tests see the emulator. `vitest.config.ts` runs the files that exercise the API once per
 * version (project `v3` sets `TTS_E2E_API=v3`); the harnesses start the bot for that version.
 */
import type { TtsClientOptions } from '../../src/tts/index.ts';
import type {
  ApiEndpoint,
  Emulator,
  EndpointName,
  Plan,
  RequestLogEntry,
} from '../../tools/emulator/index.ts';
import { clientsFor } from '../tts/emulated.ts';
import { v3ClientsFor } from '../tts/v3-emulated.ts';

/** A version of the vendor's API. */
export type ApiVersion = 'v2' | 'v3';

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

/** The generation id of a media server path (`/audio/<id>.wav`). */
function audioIdOf(path: string): string {
  return /\/audio\/([^/.?]+)/.exec(path)?.[1] ?? '';
}

/** Generation ids whose audio was fetched from the emulator's media server, in order. */
function downloaded(emulator: Emulator): string[] {
  return entriesOf(emulator, 'GET /audio').map((entry) => audioIdOf(entry.path));
}

/** Every v3 generation of every user of `emulator`. */
function v3Generations(emulator: Emulator) {
  return emulator.users.flatMap((user) => emulator.v3.generationsOf(user.userId));
}

/** Log entries of `endpoints`, oldest first. */
function entriesOf(emulator: Emulator, ...endpoints: EndpointName[]): RequestLogEntry[] {
  return emulator.requests.filter((entry) => endpoints.includes(entry.endpoint));
}

const V2: ApiUnderTest = {
  version: 'v2',
  submit: 'POST /v2/tts',
  status: 'GET /v2/status',
  voices: 'GET /v2/voices',
  env: (emulator) => ({ TTS_API_URL: emulator.baseUrl }),
  planEnv: () => ({}),
  textOf: (emulator, id) => emulator.generation(id)?.text,
  idPrefix: 'base_',
  tenthLimits: 'generate=20/6s+500/8640s,status=60/6s,voices=10/6s,health=100/6s',
  generation: (emulator, id) => {
    const gen = emulator.generation(id);
    return gen && { ...gen, completed: gen.status === 'Completed' };
  },
  polled: (emulator) => polledOn(emulator, 'GET /v2/status'),
  spoken: (emulator) => downloaded(emulator),
  heard: (emulator) => downloaded(emulator),
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
  env: (emulator) => ({ TTS_API_URL: emulator.v3.baseUrl, TTS_API_VERSION: 'v3' }),
  planEnv: (emulator, plan) => ({
    TTS_CONCURRENT_JOBS: String(emulator.v3.limitsOf(plan).concurrent),
  }),
  textOf: (emulator, id) => emulator.v3.generation(id)?.text,
  idPrefix: 'gen_',
  tenthLimits: 'request=120/6s',
  generation: (emulator, id) => {
    const gen = emulator.v3.generation(id);
    return gen && { ...gen, completed: gen.status === 'COMPLETED' };
  },
  polled: (emulator) => polledOn(emulator, 'GET /v3/tts'),
  spoken: (emulator, userId) => emulator.v3.generationsOf(userId).map((g) => g.id),
  heard: (emulator) => {
    const files = entriesOf(emulator, 'GET /audio').map((entry) => ({
      id: audioIdOf(entry.path),
      at: entry.at,
    }));
    const streams = v3Generations(emulator)
      .filter((g) => g.via === 'stream' && g.deliveredAt !== undefined)
      .map((g) => ({ id: g.id, at: g.createdAt }));
    return [...files, ...streams].sort((a, b) => a.at - b.at).map((heard) => heard.id);
  },
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
