/** Emulator, fake Discord (with voice) and a data folder for tests that run the bot as a child process. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Emulator, type EmulatorOptions, startEmulator } from '../../tools/emulator/index.ts';
import {
  type FakeDiscord,
  type InteractionHandle,
  startFakeDiscord,
} from '../fake-discord/index.ts';
import {
  type FakeVoiceServer,
  fakeVoiceCertificate,
  startFakeVoiceServer,
} from '../fake-discord/voice/index.ts';
import { api } from './api-under-test.ts';
import { type BotProcess, spawnBot } from './bot-process.ts';
import { generationTimeEnv } from './generation-time.ts';

/** Everything a bot process talks to, on loopback, and how to start one against it. */
export interface ProcessWorld {
  readonly emulator: Emulator;
  readonly discord: FakeDiscord;
  readonly voiceServer: FakeVoiceServer;
  readonly dataDir: string;
  /** The environment a bot process gets (store in `dataDir` unless `STORE_URL` is given). */
  readonly env: Record<string, string>;
  /** Starts a bot process and waits until it is ready. */
  start(env?: Record<string, string>): Promise<BotProcess>;
  /** `/config api-key` as the admin, answered by whichever bot process is running. */
  configureKey(apiKey: string): Promise<void>;
  close(): Promise<void>;
}

/** Starts the servers a bot process needs. */
export async function startProcessWorld(
  options: { emulator?: EmulatorOptions; env?: Record<string, string> } = {},
): Promise<ProcessWorld> {
  const emulatorOptions: EmulatorOptions = {
    synth: 'tone',
    generationMs: () => 150,
    ...options.emulator,
  };
  const emulator = await startEmulator(emulatorOptions);
  const voiceServer = await startFakeVoiceServer({ heartbeatIntervalMs: 1000 });
  const discord = await startFakeDiscord({ voice: voiceServer, heartbeatIntervalMs: 1000 });
  const dataDir = await mkdtemp(join(tmpdir(), 'tts-bot-process-'));
  const { certPath } = await fakeVoiceCertificate();
  const env = {
    // The API version of this test run (see api-under-test.ts).
    ...api.env(emulator),
    TTS_MEDIA_ORIGINS: emulator.mediaOrigin,
    DATA_DIR: dataDir,
    SECRET_KEY: 'ab'.repeat(32),
    NODE_EXTRA_CA_CERTS: certPath,
    TTS_CACHE_TTL: '0',
    TTS_GENERATION_TIME: generationTimeEnv(emulatorOptions.generationMs),
    ...options.env,
  };
  const started: BotProcess[] = [];
  return {
    emulator,
    discord,
    voiceServer,
    dataDir,
    env,
    async start(extra = {}) {
      const bot = spawnBot(discord, { ...env, ...extra });
      started.push(bot);
      await bot.waitForLog(/"msg":"bot is ready"/);
      return bot;
    },
    async configureKey(apiKey) {
      const handle: InteractionHandle = await discord
        .slash({ user: 'admin', name: 'config', subcommand: 'api-key' })
        .submitModal({ 'api-key': apiKey }, { timeoutMs: 15_000 });
      await handle.waitFor((event) => event.kind === 'edit', 15_000);
    },
    async close() {
      for (const bot of started) {
        if (bot.child.exitCode === null && bot.child.signalCode === null) bot.child.kill('SIGKILL');
        await bot.exited;
      }
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
