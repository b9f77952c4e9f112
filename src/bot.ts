/**
 * The composition root, read as a table of contents: each folder builds its own parts (its
 * `create…`), and this file only connects them, in start order: ffmpeg, the store (with budgets
 * and the secrets), TTS clients, the Discord session, voice, the journal, the speaking service,
 * the resumer, forgetting, the chat reader and Twitch, then Discord's events and login. What each
 * part opens is closed in reverse order by one {@link Shutdown}.
 */
import type Keyv from 'keyv';
import { FfmpegProcesses, findFfmpeg } from './audio/index.ts';
import type { Config } from './config/index.ts';
import {
  type createDiscordClient,
  DiscordSession,
  discordWiring,
  loadCommands,
} from './discord/index.ts';
import { createJournal, createResumer, type PendingResumer } from './durable/index.ts';
import type { Logger } from './log/index.ts';
import { type Check, type PrometheusMetrics, Shutdown, timedCheck } from './ops/index.ts';
import { createForgetting } from './privacy/index.ts';
import { createReader, createTwitchSource } from './reader/index.ts';
import type { Services } from './services.ts';
import { createSpeaking } from './speaking/index.ts';
import { BlocklistCache, languageDetectorFor } from './speech/index.ts';
import { openStore } from './store/index.ts';
import { type Clock, createTtsClients, systemClock } from './tts/index.ts';
import { createVoiceManager, type VoiceDependencies, type VoiceService } from './voice/index.ts';

/** A running bot. */
export interface Bot {
  readonly services: Services;
  readonly client: ReturnType<typeof createDiscordClient>;
  /** The bot's store itself, for tests that journal or slow it; handlers use Services' operations. */
  readonly store: Keyv;
  /** Readiness: Discord ready and the store reachable (for `/readyz`). */
  ready(): Promise<Check[]>;
  /**
   * Stops taking new work, leaves voice, logs out and closes the store (pending speech stays
   * journalled for the next start); calling it again waits for the same stop.
   */
  stop(): Promise<void>;
  /** How many pending requests of an earlier run were found and are being resumed. */
  readonly resumed: Promise<number>;
  readonly resumer: PendingResumer;
}

/**
 * Builds the services and logs the bot in. Everything the bot does is
 * reachable from here; nothing is global.
 */
export async function startBot(
  config: Config,
  options: {
    logger: Logger;
    /** Builds the voice service; the real {@link createVoiceManager} by default. */
    createVoice?: (deps: VoiceDependencies) => VoiceService;
    clock?: Clock;
    /** The registry of ffmpeg children; a new one by default (tests pass theirs to watch it). */
    processes?: FfmpegProcesses;
    loginTimeoutMs?: number;
    /** Where metrics are recorded (and its gauges read from this bot); nowhere when absent. */
    metrics?: PrometheusMetrics;
    /**
     * How many bot processes share the keys' budgets (the shard count under a manager; 1 by
     * default): while Redis is away, this one keeps to its share of each limit.
     */
    budgetSharers?: number;
    /**
     * The first wait before retrying a TTS call whose answer named none (doubling after); the
     * real 1 s by default. Tests of API faults pass a few milliseconds so they do not sit out 1+2+4+8 s.
     */
    ttsRetryBaseMs?: number;
  },
): Promise<Bot> {
  const { logger, metrics, budgetSharers } = options;
  const clock = options.clock ?? systemClock;
  // What has been opened so far, closed in reverse order by `stop` (also when start-up fails).
  const shutdown = new Shutdown(logger);
  const { onStop, stop } = shutdown;
  try {
    const ffmpeg = await findFfmpeg(config.ffmpegPath, logger);
    const commands = await loadCommands();
    const store = await openStore({ config, clock, logger, budgetSharers, onStop });
    const retryBaseMs = options.ttsRetryBaseMs;
    const tts = createTtsClients({ config, store, clock, logger, metrics, retryBaseMs });
    onStop(() => tts.saveLearned());
    const discord = new DiscordSession(config);
    onStop(() => discord.destroy());
    const processes = options.processes ?? new FfmpegProcesses();
    const { translatorOf, notify } = discord;
    const voice = (options.createVoice ?? createVoiceManager)({
      ...{ ffmpegPath: ffmpeg.path, processes, clock, config, translatorOf, notify },
      logger: logger.child({ subsystem: 'voice' }),
    });
    onStop(() => voice.destroy());
    const durable = createJournal({ store, voice, clock, logger });
    // One cache of compiled block lists: the reader's early screen and the final one share it.
    const blocklists = new BlocklistCache();
    const speaking = createSpeaking({
      ...{ config, store, tts, voice, durable, clock, logger, metrics },
      ...{ translatorOf, blocklists, detectLanguage: await languageDetectorFor(config.ttsApi) },
      audio: { ffmpegPath: ffmpeg.path, processes },
    });
    const resumer = createResumer({ durable, store, tts, voice, speaking, discord, clock, logger });
    // Stopping: nothing interrupted from here on is forgotten; resumed work stops waiting.
    onStop(async () => {
      durable.recorder.freeze();
      await resumer.stop();
    });
    // Forgetting a server: `/config forget`, and a removal once DATA_RETENTION is over.
    const forget = createForgetting({ config, store, tts, voice, durable, discord, clock, logger });
    onStop(() => forget.scheduler.stop());
    const reader = createReader({
      config,
      store,
      speaking,
      voice,
      discord,
      clock,
      logger,
      blocklists,
    });
    onStop(async () => reader.close());
    const twitch = createTwitchSource({
      config,
      store,
      tts,
      reader,
      voice,
      clock,
      logger,
      metrics,
    });
    onStop(() => twitch.close());
    // A forgotten server's records are gone: its Twitch chat stops being read at once, its
    // authors' recent text goes, and the chatters' voices held in memory go (else the next
    // assignment wrote them back).
    forget.service.onForgotten((guildId) => {
      twitch.stopAll(guildId);
      reader.forget(guildId);
      void speaking.forgetServer(guildId);
    });
    const { settings, members, apiKeys, usage } = store;
    const services: Services = {
      ...{ config, logger, clock, settings, members, apiKeys, usage },
      ...{ tts, voice, speaking, reader, twitch, forget: forget.service },
    };
    metrics?.watch(discord.gauges(voice));
    const removals = forget.scheduler;
    const wire = discordWiring({
      commands,
      services,
      removals,
      accepting: () => shutdown.accepting,
    });
    const token = config.discordToken;
    await discord.connect({ token, timeoutMs: options.loginTimeoutMs ?? 30_000, wire, logger });
    const client = await discord.ready({ commands, store, config, logger });
    const ready = async (): Promise<Check[]> => [
      { name: 'discord', ok: discord.client.isReady() },
      await timedCheck('store', () => store.keyv.get('ops:readyz')),
    ];
    metrics?.watchReadiness(ready);
    const resumed = resumer.startWhenReadable();
    forget.scheduler.start();
    // Every server of this process with Twitch channels starts reading them.
    void twitch.start(client.guilds.cache.keys());
    return { services, client, store: store.keyv, ready, stop, resumed, resumer };
  } catch (error) {
    await stop();
    throw error;
  }
}
