import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FfmpegProcesses } from '../../src/audio/index.ts';
import { type Bot, startBot } from '../../src/bot.ts';
import { parseConfig } from '../../src/config/index.ts';
import { createLogger } from '../../src/log/index.ts';
import type { PrometheusMetrics } from '../../src/ops/index.ts';
import {
  type Emulator,
  type EmulatorOptions,
  startEmulator,
  USER_ONE,
} from '../../tools/emulator/index.ts';
import {
  type FakeDiscord,
  type FakeDiscordOptions,
  startFakeDiscord,
} from '../fake-discord/index.ts';
import {
  type FakeVoiceServer,
  startFakeVoiceServer,
  trustFakeVoiceCertificate,
} from '../fake-discord/voice/index.ts';
import { type ApiVersion, api, apiOf } from './api-under-test.ts';
import { generationTimeEnv } from './generation-time.ts';

/** The real bot, logged into the fake Discord, speaking to the TTS emulator. */
export interface TestBot {
  readonly bot: Bot;
  readonly discord: FakeDiscord;
  readonly emulator: Emulator;
  readonly voiceServer: FakeVoiceServer;
  /** Every log line the bot wrote (JSON), for secret checks. */
  readonly logs: string[];
  readonly dataDir: string;
  /** The bot's ffmpeg children, from spawn until reaped. */
  readonly processes: FfmpegProcesses;
  /** Sets the guild's API key through `/config api-key` as the admin, and waits for the confirmation. */
  configureKey(apiKey?: string): Promise<string>;
  /** Stops the bot and every server, and removes the data folder. */
  stop(): Promise<void>;
}

/** Starts emulator, fake Discord (with voice) and the bot, on free loopback ports, for the run's API version. */
export async function startTestBot(
  options: {
    emulator?: EmulatorOptions;
    env?: Record<string, string>;
    /** Extra users, bots, guild layout, refused intents… of the fake Discord. */
    discord?: Omit<FakeDiscordOptions, 'voice' | 'heartbeatIntervalMs'>;
    /** Passed to `startBot`: where the bot records its metrics. */
    metrics?: PrometheusMetrics;
    /** The API version, for a test about one; the run's version (api-under-test) when absent. */
    api?: ApiVersion;
    /** Passed to `startBot`: the first TTS retry wait (doubling after); the real 1 s when absent. */
    ttsRetryBaseMs?: number;
  } = {},
): Promise<TestBot> {
  await trustFakeVoiceCertificate();
  const emulatorOptions: EmulatorOptions = {
    synth: 'tone',
    generationMs: () => 150,
    ...options.emulator,
  };
  const emulator = await startEmulator(emulatorOptions);
  const voiceServer = await startFakeVoiceServer({ heartbeatIntervalMs: 1000 });
  const discord = await startFakeDiscord({
    ...options.discord,
    voice: voiceServer,
    heartbeatIntervalMs: 1000,
  });
  const dataDir = await mkdtemp(join(tmpdir(), 'tts-bot-e2e-'));
  const logs: string[] = [];
  // The production logger (cleaning included), so secret checks on `logs` test the real path.
  const logger = createLogger({
    level: 'debug',
    pretty: false,
    destination: { write: (line: string) => logs.push(line) },
  });
  const config = parseConfig({
    DISCORD_TOKEN: discord.token,
    DISCORD_API_URL: discord.apiUrl,
    // The API version of this test run (see api-under-test.ts).
    ...(options.api === undefined ? api : apiOf(options.api)).env(emulator),
    TTS_MEDIA_ORIGINS: emulator.mediaOrigin,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'debug',
    VOICE_IDLE_TIMEOUT: '60s',
    // Tests repeat the same text and count generations; those about the cache turn it on.
    TTS_CACHE_TTL: '0',
    TTS_GENERATION_TIME: generationTimeEnv(emulatorOptions.generationMs),
    ...options.env,
  });
  const processes = new FfmpegProcesses();
  let bot: Bot;
  try {
    bot = await startBot(config, {
      logger,
      processes,
      ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
      ...(options.ttsRetryBaseMs === undefined ? {} : { ttsRetryBaseMs: options.ttsRetryBaseMs }),
    });
  } catch (error) {
    await Promise.allSettled([discord.close(), voiceServer.close(), emulator.close()]);
    throw error;
  }
  return {
    bot,
    discord,
    emulator,
    voiceServer,
    logs,
    dataDir,
    processes,
    async configureKey(apiKey = USER_ONE.apiKey) {
      const handle = await discord
        .slash({ user: 'admin', name: 'config', subcommand: 'api-key' })
        .submitModal({ 'api-key': apiKey });
      const reply = await handle.waitFor((event) => event.kind === 'edit');
      return JSON.stringify(reply);
    },
    async stop() {
      await bot.stop();
      const [, voice] = await Promise.allSettled([
        discord.close(),
        voiceServer.close(),
        emulator.close(),
      ]);
      await rm(dataDir, { recursive: true, force: true });
      // The voice server's close fails when the bot ever sent a plaintext frame under DAVE.
      if (voice.status === 'rejected') throw voice.reason;
    },
  };
}
