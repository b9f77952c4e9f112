/**
 * The servers a bot process talks to, on 127.0.0.1: the TTS emulator, the fake Discord (with its
 * voice server when asked) and a data folder, plus the environment that points the bot at them.
 * Shared by the local stack (one `src/main.ts`) and the sharded-mode tests (`src/sharded.ts`).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type FakeDiscord,
  type FakeDiscordOptions,
  startFakeDiscord,
} from '../../test/fake-discord/index.ts';
import {
  type FakeVoiceServer,
  type FakeVoiceServerOptions,
  fakeVoiceCertificate,
  startFakeVoiceServer,
} from '../../test/fake-discord/voice/index.ts';
import {
  type ApiVersion,
  type Emulator,
  type EmulatorOptions,
  startEmulator,
} from '../emulator/index.ts';

/** What to start. */
export interface StackServersOptions {
  readonly emulator?: EmulatorOptions;
  readonly discord?: Omit<FakeDiscordOptions, 'voice'>;
  /** Start the fake voice server too (and trust its certificate in the bot). */
  readonly voice?: boolean;
  /** Options of that voice server (e.g. `dave: false`); DAVE on by default. */
  readonly voiceOptions?: FakeVoiceServerOptions;
  /** The vendor API version the bot speaks (v2 unless told): sets `TTS_API_VERSION` and `TTS_API_URL`. */
  readonly api?: ApiVersion;
  /** More environment for the bot (e.g. `TTS_LIMITS`, `LOG_LEVEL`). */
  readonly env?: Record<string, string>;
}

/** Running servers and the bot environment that uses them. */
export interface StackServers {
  readonly emulator: Emulator;
  readonly discord: FakeDiscord;
  /** The fake voice server, when `voice` was asked for. */
  readonly voiceServer: FakeVoiceServer | undefined;
  /** The bot's data folder (its SQLite file and secret key), removed by `stop`. */
  readonly dataDir: string;
  /** The environment of a bot process (`src/main.ts` or `src/sharded.ts`) using these servers. */
  readonly env: Record<string, string>;
  /** Stops every server and removes the data folder. */
  stop(): Promise<void>;
}

/** The bot's environment for speaking `version` of the API to `emulator` (whose v2 and v3 share servers). */
export function botApiEnv(emulator: Emulator, version: ApiVersion): Record<string, string> {
  return version === 'v3'
    ? { TTS_API_URL: emulator.v3.baseUrl, TTS_API_VERSION: 'v3' }
    : { TTS_API_URL: emulator.baseUrl };
}

/** Starts the emulator (tone speech unless told), the fake Discord and, when asked, its voice server. */
export async function startStackServers(options: StackServersOptions = {}): Promise<StackServers> {
  const closers: (() => Promise<unknown>)[] = [];
  const stop = async (): Promise<void> => {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    closers.length = 0;
  };
  try {
    const emulator = await startEmulator({ synth: 'tone', ...options.emulator });
    closers.push(() => emulator.close());
    let voiceServer: FakeVoiceServer | undefined;
    if (options.voice === true) {
      const started = await startFakeVoiceServer({
        heartbeatIntervalMs: 5000,
        ...options.voiceOptions,
      });
      voiceServer = started;
      closers.push(() => started.close());
    }
    const discord = await startFakeDiscord({
      ...options.discord,
      ...(voiceServer === undefined ? {} : { voice: voiceServer }),
    });
    closers.push(() => discord.close());
    const dataDir = await mkdtemp(join(tmpdir(), 'tts-bot-stack-'));
    closers.push(() => rm(dataDir, { recursive: true, force: true }));
    const certPath =
      voiceServer === undefined ? undefined : (await fakeVoiceCertificate()).certPath;
    const env = {
      DISCORD_TOKEN: discord.token,
      DISCORD_API_URL: discord.apiUrl,
      ...botApiEnv(emulator, options.api ?? 'v2'),
      TTS_MEDIA_ORIGINS: emulator.mediaOrigin,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      NODE_ENV: 'production',
      ...(certPath === undefined ? {} : { NODE_EXTRA_CA_CERTS: certPath }),
      ...options.env,
    };
    return { emulator, discord, voiceServer, dataDir, env, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
