/**
 * Everything the bot talks to, on 127.0.0.1, plus the real bot as a child process: the TTS
 * emulator, the fake Discord (REST, gateway) and its fake voice server. For `npm run bench`
 * and `npm run demo`; `stop()` leaves no process or temporary file behind.
 */
import type { FakeDiscord, FakeDiscordOptions } from '../../test/fake-discord/index.ts';
import type {
  FakeVoiceServer,
  FakeVoiceServerOptions,
} from '../../test/fake-discord/voice/index.ts';
import type { ApiVersion, Emulator, EmulatorOptions } from '../emulator/index.ts';
import { type BotProcess, startBotProcess } from './bot-process.ts';
import { startStackServers } from './servers.ts';

export {
  type BotProcess,
  childrenOf,
  ownCpuMs,
  REPO_ROOT,
  rssOf,
  treeCpuMs,
} from './bot-process.ts';
export {
  botApiEnv,
  type StackServers,
  type StackServersOptions,
  startStackServers,
} from './servers.ts';

/** What to start. */
export interface LocalStackOptions {
  readonly emulator?: EmulatorOptions;
  readonly discord?: Omit<FakeDiscordOptions, 'voice'>;
  /** The vendor API version the bot speaks to the emulator: v2 unless told. */
  readonly api?: ApiVersion;
  /** More environment for the bot (e.g. `TTS_LIMITS`, `LOG_LEVEL`). */
  readonly env?: Record<string, string>;
  readonly readyTimeoutMs?: number;
  /** Options of the fake voice server (e.g. `dave: false`); DAVE on by default. */
  readonly voiceOptions?: FakeVoiceServerOptions;
}

/** A running stack. */
export interface LocalStack {
  readonly emulator: Emulator;
  readonly discord: FakeDiscord;
  readonly voiceServer: FakeVoiceServer;
  readonly bot: BotProcess;
  /** The vendor API version the bot speaks. */
  readonly api: ApiVersion;
  /** Stops the bot (cleanly), then the servers, and removes the bot's data folder. */
  stop(): Promise<void>;
}

/** Starts the emulator, the fake Discord with voice, and the bot logged into it. */
export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  const servers = await startStackServers({
    voice: true,
    discord: { heartbeatIntervalMs: 10_000, ...options.discord },
    ...(options.emulator === undefined ? {} : { emulator: options.emulator }),
    ...(options.api === undefined ? {} : { api: options.api }),
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.voiceOptions === undefined ? {} : { voiceOptions: options.voiceOptions }),
  });
  const { emulator, discord, voiceServer } = servers;
  try {
    if (voiceServer === undefined) throw new Error('the local stack needs the fake voice server');
    const bot = await startBotProcess(
      servers.env,
      options.readyTimeoutMs === undefined ? {} : { readyTimeoutMs: options.readyTimeoutMs },
    );
    const stop = async (): Promise<void> => {
      await bot.stop().catch(() => undefined);
      await servers.stop();
    };
    return { emulator, discord, voiceServer, bot, api: options.api ?? 'v2', stop };
  } catch (error) {
    await servers.stop();
    throw error;
  }
}

/** Sets the server's API key as an admin does (`/config api-key` and its modal) and waits for the answer. */
export async function setApiKey(discord: FakeDiscord, apiKey: string): Promise<void> {
  const reply = await discord
    .slash({ user: 'admin', name: 'config', subcommand: 'api-key' })
    .submitModal({ 'api-key': apiKey });
  await reply.waitFor((event) => event.kind === 'edit', 20_000);
}

/**
 * Every server of the fake Discord sets its own key (`keys[i]` for the i-th) and brings the bot
 * into its member's voice channel with `/join`, all at once: many servers ready to speak.
 */
export async function keyAndJoinEvery(
  discord: FakeDiscord,
  keys: readonly string[],
  timeoutMs: number,
): Promise<void> {
  await Promise.all(
    discord.guilds.map(async (guild, i) => {
      const handle = await discord
        .slash({
          user: 'admin',
          name: 'config',
          subcommand: 'api-key',
          channelId: guild.textChannelId,
        })
        .submitModal({ 'api-key': keys[i] ?? '' });
      await handle.waitFor((event) => event.kind === 'edit', timeoutMs);
      await discord
        .slash({ user: 'member', name: 'join', channelId: guild.textChannelId })
        .waitForReply(timeoutMs);
    }),
  );
}
