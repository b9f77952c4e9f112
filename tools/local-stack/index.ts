/**
 * Everything the bot talks to, on 127.0.0.1, plus the real bot as a child process: the TTS
 * emulator, the fake Discord (REST, gateway) and its fake voice server. For `npm run bench`
 * and `npm run demo`; `stop()` leaves no process or temporary file behind.
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
  fakeVoiceCertificate,
  startFakeVoiceServer,
} from '../../test/fake-discord/voice/index.ts';
import { type Emulator, type EmulatorOptions, startEmulator } from '../emulator/index.ts';
import { type BotProcess, startBotProcess } from './bot-process.ts';

export { type BotProcess, childrenOf, REPO_ROOT, rssOf } from './bot-process.ts';

/** What to start. */
export interface LocalStackOptions {
  readonly emulator?: EmulatorOptions;
  readonly discord?: Omit<FakeDiscordOptions, 'voice'>;
  /** More environment for the bot (e.g. `TTS_LIMITS`, `LOG_LEVEL`). */
  readonly env?: Record<string, string>;
  readonly readyTimeoutMs?: number;
}

/** A running stack. */
export interface LocalStack {
  readonly emulator: Emulator;
  readonly discord: FakeDiscord;
  readonly voiceServer: FakeVoiceServer;
  readonly bot: BotProcess;
  /** Stops the bot (cleanly), then the servers, and removes the bot's data folder. */
  stop(): Promise<void>;
}

/** Starts the emulator, the fake Discord with voice, and the bot logged into it. */
export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  const closers: (() => Promise<unknown>)[] = [];
  const stop = async (): Promise<void> => {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    closers.length = 0;
  };
  try {
    const emulator = await startEmulator({ synth: 'tone', ...options.emulator });
    closers.push(() => emulator.close());
    const voiceServer = await startFakeVoiceServer({ heartbeatIntervalMs: 5000 });
    closers.push(() => voiceServer.close());
    const discord = await startFakeDiscord({
      heartbeatIntervalMs: 10_000,
      ...options.discord,
      voice: voiceServer,
    });
    closers.push(() => discord.close());
    const dataDir = await mkdtemp(join(tmpdir(), 'tts-bot-stack-'));
    closers.push(() => rm(dataDir, { recursive: true, force: true }));
    const { certPath } = await fakeVoiceCertificate();
    const bot = await startBotProcess(
      {
        DISCORD_TOKEN: discord.token,
        DISCORD_API_URL: discord.apiUrl,
        TTS_API_URL: emulator.baseUrl,
        TTS_MEDIA_ORIGINS: emulator.mediaOrigin,
        DATA_DIR: dataDir,
        LOG_LEVEL: 'info',
        NODE_EXTRA_CA_CERTS: certPath,
        ...options.env,
      },
      options.readyTimeoutMs === undefined ? {} : { readyTimeoutMs: options.readyTimeoutMs },
    );
    closers.push(() => bot.stop());
    return { emulator, discord, voiceServer, bot, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
