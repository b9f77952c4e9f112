/** Starts the API and media servers and hands back the test-facing control object. */
import { createServer } from 'node:http';
import { apiHandler } from './api.ts';
import { Synthesizer } from './audio.ts';
import { Core } from './core.ts';
import type { EndpointName, Fault } from './faults.ts';
import { listen, shutdown, trackSockets } from './http.ts';
import { mediaHandler } from './media.ts';
import {
  type AudioFormat,
  type EmulatorOptions,
  type EmulatorUser,
  resolveOptions,
} from './options.ts';
import type { EndpointCount, RequestLogEntry } from './stats.ts';
import type { GenerationStatus } from './store.ts';
import { isV3Path, v3Handler } from './v3/api.ts';
import { V3Core } from './v3/core.ts';
import { type Plan, V3_LIMITS, type V3PlanLimits } from './v3/limits.ts';
import type { V3Generation } from './v3/records.ts';
import { attachStream, STREAM_PATH } from './v3/stream.ts';

/** What a test can see of a generation without going through HTTP. */
export interface GenerationSnapshot {
  id: string;
  userId: string;
  status: GenerationStatus;
  text: string;
  voiceId: string;
  model: string;
  createdAt: number;
  /** When it turned `Completed`, on the emulator's clock. */
  completedAt?: number;
  error?: string;
}

/** What a test can see of a v3 generation without going through HTTP. */
export type V3Snapshot = Omit<V3Generation, 'audio' | 'transitions'> & {
  /** Every status it has had, in order. */
  transitions: V3Generation['status'][];
};

/** The v3 side of a running emulator (the same servers serve v2 and v3). */
export interface EmulatorV3 {
  /** API base address ending in `/v3`. */
  readonly baseUrl: string;
  /** WebSocket address of the stream, without the `api_key` query. */
  readonly streamUrl: string;
  /** A v3 generation, expired or not. */
  generation(generationId: string): V3Snapshot | undefined;
  /** Every v3 generation of a user (streams included), oldest first, for tests. */
  generationsOf(userId: string): V3Snapshot[];
  /** A plan's limits in force. */
  limitsOf(plan: Plan): V3PlanLimits;
  /** Sets the pace of streams opened from now on (`streamSpeed`), so one emulator serves several. */
  setStreamSpeed(speed: number): void;
  /** Sets the pause half-way through streams opened from now on (`streamPauseMs`; 0: none). */
  setStreamPause(ms: number): void;
}

/** A running emulator. */
export interface Emulator {
  /** API base address, ending in `/v2` (e.g. `http://127.0.0.1:41234/v2`). */
  readonly baseUrl: string;
  /** API origin without the version segment, for the health check at `/` and `/health`. */
  readonly origin: string;
  /** Media server origin (e.g. `http://127.0.0.1:41235`). */
  readonly mediaOrigin: string;
  readonly port: number;
  readonly mediaPort: number;
  readonly users: readonly EmulatorUser[];
  /** Speech source in use: espeak-ng, or the sine-tone fallback. */
  readonly audioSource: 'espeak' | 'tone';
  /** Byte format really served (WAV when ffmpeg is missing). */
  readonly audioFormat: AudioFormat;
  /** Arms a fault; see `Fault`. */
  fault(fault: Fault): void;
  /** Disarms every fault. */
  clearFaults(): void;
  /** Requests per endpoint, with a breakdown by response status (0 = dropped). */
  counts(): Partial<Record<EndpointName, EndpointCount>>;
  /** The request log, oldest first (a copy). */
  readonly requests: RequestLogEntry[];
  /** The v3 API on the same servers. */
  readonly v3: EmulatorV3;
  /** The exact bytes the media server serves for a generation (v2 or v3), once completed. */
  audioOf(generationId: string): Buffer | undefined;
  generation(generationId: string): GenerationSnapshot | undefined;
  balanceOf(userId: string): number | undefined;
  setBalance(userId: string, credits: number): void;
  /** Clears counters, the request log, rate-limit windows and faults (generations stay). */
  reset(): void;
  /** Closes both servers and their sockets, kills synthesis processes and cancels timers. */
  close(): Promise<void>;
}

/** Starts an emulator following the spec and vendor notes. */
export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const resolved = resolveOptions(options);
  const synth = new Synthesizer(
    resolved.synth,
    resolved.audioFormat,
    resolved.espeakPath,
    resolved.ffmpegPath,
    resolved.toneSecondsPerChar,
  );
  await synth.init();
  const core = new Core(resolved, synth);
  const v3 = new V3Core(core);
  const v2Api = apiHandler(core);
  const v3Api = v3Handler(v3);
  const api = createServer((req, res) => (isV3Path(req.url) ? v3Api : v2Api)(req, res));
  const stream = attachStream(api, v3);
  const audioOf = (id: string): Buffer | undefined =>
    core.store.get(id)?.audio ?? v3.store.get(id)?.audio;
  const media = createServer(mediaHandler(core, audioOf));
  const apiSockets = trackSockets(api);
  const mediaSockets = trackSockets(media);
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      core.scheduler.close();
      synth.close();
      for (const client of stream.clients) client.terminate();
      stream.close();
      await Promise.all([shutdown(api, apiSockets), shutdown(media, mediaSockets)]);
    })();
    return closing;
  };
  try {
    const port = await listen(api, resolved.port, resolved.host);
    const mediaPort = await listen(media, resolved.mediaPort, resolved.host);
    const host = resolved.host.includes(':') ? `[${resolved.host}]` : resolved.host;
    const origin = `http://${host}:${port}`;
    core.mediaOrigin = `http://${host}:${mediaPort}`;
    return {
      baseUrl: `${origin}/v2`,
      origin,
      mediaOrigin: core.mediaOrigin,
      port,
      mediaPort,
      users: resolved.users,
      audioSource: synth.source,
      audioFormat: synth.format,
      fault: (fault) => core.faults.add(fault),
      clearFaults: () => core.faults.clear(),
      counts: () => core.stats.counts(),
      get requests() {
        return core.stats.entries();
      },
      v3: {
        baseUrl: `${origin}/v3`,
        streamUrl: `ws://${host}:${port}${STREAM_PATH}`,
        generation: (id) => {
          const gen = v3.store.snapshot(id);
          if (!gen) return undefined;
          const { audio: _audio, transitions, ...snapshot } = gen;
          return { ...snapshot, transitions: [...transitions] };
        },
        generationsOf: (userId) =>
          v3.store
            .historyOf(userId)
            .reverse()
            .map(({ audio: _audio, transitions, ...snapshot }) => ({
              ...snapshot,
              transitions: [...transitions],
            })),
        limitsOf: (plan) => resolved.v3Limits[plan] ?? V3_LIMITS[plan],
        setStreamSpeed: (speed) => {
          if (!(speed > 0)) throw new RangeError('streamSpeed must be a positive number');
          resolved.streamSpeed = speed;
        },
        setStreamPause: (ms) => {
          if (!(ms >= 0)) throw new RangeError('streamPauseMs must be 0 or more');
          resolved.streamPauseMs = ms;
        },
      },
      audioOf: (id) => {
        const audio = audioOf(id);
        return audio ? Buffer.from(audio) : undefined;
      },
      generation: (id) => {
        const gen = core.store.get(id);
        if (!gen) return undefined;
        const { audio: _audio, ...snapshot } = gen;
        return snapshot;
      },
      balanceOf: (userId) => core.balanceOf(userId),
      setBalance: (userId, credits) => core.setBalance(userId, credits),
      reset: () => {
        core.stats.reset();
        core.limiter.reset();
        v3.limiter.reset();
        core.faults.clear();
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
