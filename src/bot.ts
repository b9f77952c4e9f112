import { Events, type Interaction, MessageFlags } from 'discord.js';
import type Keyv from 'keyv';
import { FfmpegProcesses, resolveFfmpeg } from './audio/index.ts';
import type { Config } from './config/index.ts';
import { wireChatEvents } from './discord/chat-events.ts';
import { createDiscordClient, MESSAGE_CONTENT_REFUSED } from './discord/client.ts';
import { wireGuildEvents } from './discord/guild-events.ts';
import { createRouter, describeFailure, loadCommands, registerCommands } from './discord/index.ts';
import { wireRemovalEvents } from './discord/removal-events.ts';
import { restResultSender } from './discord/result-sender.ts';
import { wireVoiceEvents } from './discord/voice-events.ts';
import {
  type JournalIndex,
  JournalRecorder,
  PendingJournal,
  PendingResumer,
  RedisJournalIndex,
} from './durable/index.ts';
import { type Translator, translatorFor } from './i18n/index.ts';
import type { Logger } from './log/index.ts';
import {
  type Check,
  type GenerationOutcome,
  noMetrics,
  type PrometheusMetrics,
  timedCheck,
} from './ops/index.ts';
import { PreviewCache } from './preview/index.ts';
import { createForgetting } from './privacy/index.ts';
import { ChatReader, chatSpeaking, createTwitchSource } from './reader/index.ts';
import type { Services } from './services.ts';
import { ownsGuild } from './sharding/plan.ts';
import { dailyLimitOf, SpeakingService, type SpeechEnd } from './speaking/index.ts';
import {
  ApiKeyVault,
  KeyvBudgetJournal,
  KeyvLearnedTimesStore,
  KeyvSettingsStore,
  KeyvSpeechCacheStore,
  KeyvUsageLedger,
  KeyvVoiceAssignments,
  loadSecretKeys,
  migrateLegacyApiKeys,
  openKeyv,
  openRedis,
  RedisBudgetStore,
} from './store/index.ts';
import {
  type BudgetStore,
  type Clock,
  FallbackBudgetStore,
  MemoryBudgetStore,
  productionClientOptions,
  SpeechCache,
  shareOfLimits,
  systemClock,
  TtsClients,
} from './tts/index.ts';
import { VoiceManager, type VoiceService } from './voice/index.ts';

/** What the voice service is built from. */
export interface VoiceDependencies {
  readonly ffmpegPath: string;
  /** Where ffmpeg children are registered, so stopping kills what still runs. */
  readonly processes: FfmpegProcesses;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly config: Config;
  /** Posts a short notice to a guild (e.g. why the bot left voice). */
  readonly notify: (guildId: string, channelId: string, text: string) => Promise<void>;
  /** The language of a guild's notices: its community locale. */
  readonly translatorOf: (guildId: string) => Translator;
}

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

/** How long a resumed voice item waits for the bot to be back in its channel before it is reported. */
const VOICE_RESUME_WAIT_MS = 10 * 60_000;

/** Failure to reach or log into Discord, said plainly. */
export class DiscordConnectError extends Error {
  override readonly name = 'DiscordConnectError';
}

/** Discord refused a privileged intent the bot asked for (gateway close code 4014). */
export class DisallowedIntentsError extends DiscordConnectError {}

/**
 * Builds the services and logs the bot in. Everything the bot does is
 * reachable from here; nothing is global.
 */
export async function startBot(
  config: Config,
  options: {
    logger: Logger;
    /** Builds the voice service; the real {@link VoiceManager} by default. */
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
  },
): Promise<Bot> {
  const { logger } = options;
  const clock = options.clock ?? systemClock;
  const ffmpeg = await resolveFfmpeg({ env: { FFMPEG_PATH: config.ffmpegPath } });
  logger.info(
    { path: ffmpeg.path, source: ffmpeg.source, version: ffmpeg.version },
    'using ffmpeg',
  );
  for (const failure of ffmpeg.failures) {
    // ffmpeg-static is optional and usually absent; a broken FFMPEG_PATH is worth a warning.
    if (failure.source === 'FFMPEG_PATH')
      logger.warn({ ...failure }, 'FFMPEG_PATH is unusable, fell back');
  }
  // What has been opened so far, closed in reverse order by `stop` (also when start-up fails).
  const opened: (() => Promise<void>)[] = [];
  let stopping: Promise<void> | undefined;
  let accepting = true;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      accepting = false;
      let failure: unknown;
      // Each step runs even when one before it failed: the store must close whatever happens.
      for (const close of opened.reverse()) {
        try {
          await close();
        } catch (error) {
          logger.error({ err: error }, 'a part of the bot did not stop cleanly');
          failure ??= error;
        }
      }
      if (failure !== undefined) throw failure;
    })();
    return stopping;
  };
  try {
    const commands = await loadCommands();
    const keyv = await openKeyv(config.storeUrl);
    opened.push(() => keyv.disconnect());
    // SECRET_KEY seals; SECRET_KEY_PREVIOUS still opens (each record is sealed again on first read).
    const { current: secretKey, previous } = await loadSecretKeys(config, logger);
    const settings = new KeyvSettingsStore(keyv);
    let budgets: BudgetStore;
    // Pending speech's index: a Redis set when shard processes share the store.
    let pendingIndex: JournalIndex | undefined;
    if (isRedisUrl(config.storeUrl)) {
      // Shared with every other process on this Redis: budgets are exact across shards.
      const redis = await openRedis(config.storeUrl, (error) =>
        logger.warn({ err: error }, 'Redis connection error'),
      );
      opened.push(async () => void (await redis.close()));
      pendingIndex = new RedisJournalIndex(redis, keyv);
      let warnedAt = Number.NEGATIVE_INFINITY;
      budgets = new FallbackBudgetStore(
        new RedisBudgetStore(redis, config.ttsLimits),
        new MemoryBudgetStore(shareOfLimits(config.ttsLimits, options.budgetSharers ?? 1)),
        (error) => {
          // One line per 30 s of outage, not one per request.
          if (clock.now() - warnedAt < 30_000) return;
          warnedAt = clock.now();
          logger.warn({ err: error }, 'shared rate budgets unreachable; using this process’s own');
        },
      );
    } else {
      budgets = new MemoryBudgetStore(config.ttsLimits, new KeyvBudgetJournal(keyv));
    }
    const cache = new SpeechCache({
      store: new KeyvSpeechCacheStore(keyv),
      ttlMs: config.cacheTtlMs,
      clock,
      onError: (error) => logger.warn({ err: error }, 'speech cache unavailable'),
    });
    const tts = new TtsClients({
      ...productionClientOptions({
        baseUrl: config.ttsApiUrl,
        mediaOrigins: config.ttsMediaOrigins,
        pollDeadlineMs: config.pollDeadlineMs,
        budgets,
        clock,
        onBackgroundError: (error) => logger.warn({ err: error }, 'TTS background request failed'),
        metrics: options.metrics,
      }),
      cache,
      learning: { store: new KeyvLearnedTimesStore(keyv), prior: config.generationPrior },
    });
    opened.push(() => tts.saveLearned());
    // Reading chat needs the privileged Message Content intent; without it, the bot runs without.
    let client = createDiscordClient({ apiUrl: config.discordApiUrl, readMessages: true });
    opened.push(() => client.destroy());
    const metrics = options.metrics ?? noMetrics;
    // Texts for a whole server (voice notices, resumed speech) follow its community locale.
    const guildTranslator = (guildId: string): Translator =>
      translatorFor(client.guilds.cache.get(guildId)?.preferredLocale);
    const voice = (options.createVoice ?? createVoiceManager)({
      ffmpegPath: ffmpeg.path,
      processes: options.processes ?? new FfmpegProcesses(),
      logger: logger.child({ subsystem: 'voice' }),
      clock,
      config,
      translatorOf: guildTranslator,
      notify: async (_guildId, channelId, text) => {
        const channel = await client.channels.fetch(channelId);
        if (channel?.isSendable())
          await channel.send({ content: text, allowedMentions: { parse: [] } });
      },
    });
    opened.push(() => voice.destroy());
    const apiKeys = new ApiKeyVault(settings, { current: secretKey, previous }, logger);
    // Before anything reads a key: `v1` records are re-sealed bound to their guild, then refused.
    const migration = await migrateLegacyApiKeys(keyv, settings, apiKeys);
    if (migration !== 'done before' && migration.resealed > 0)
      logger.info({ resealed: migration.resealed }, 'stored API keys re-sealed to the v2 format');
    if (migration !== 'done before' && migration.unreadable > 0)
      logger.warn(
        { unreadable: migration.unreadable },
        'stored API keys in the v1 format do not open with this SECRET_KEY; they stay unreadable',
      );
    // Pending speech lives in the store from submission to delivery (see docs/ARCHITECTURE.md).
    const pending = new PendingJournal(keyv, {
      secretKey,
      previousSecretKeys: previous,
      clock,
      logger,
      index: pendingIndex,
    });
    const recorder = new JournalRecorder({
      journal: pending,
      clock,
      voiceChannelOf: (guildId) => voice.channelOf(guildId),
    });
    const usage = new KeyvUsageLedger(keyv);
    const previews = new PreviewCache(keyv);
    const speaking = new SpeakingService({
      settings,
      apiKeyOf: (guildId) => apiKeys.get(guildId),
      tts,
      voice,
      usage,
      dailyLimit: dailyLimitOf(config.ttsLimits.generate),
      clock,
      logger,
      minTextLength: config.minTextLength,
      previews,
      journal: recorder,
      voiceAssignments: new KeyvVoiceAssignments(keyv),
      onEnd: (state) => metrics.generation(OUTCOME_OF[state]),
    });
    const resumer = new PendingResumer({
      journal: pending,
      clientFor: async (guildId) => {
        const apiKey = await apiKeys.get(guildId);
        return apiKey === undefined ? undefined : tts.forKey(apiKey);
      },
      // Through whichever client is logged in (a refused intent replaces the first one).
      send: (route, message) => restResultSender(client)(route, message),
      describeFailure: (error, translator) => describeFailure(error, translator).text,
      translatorOf: guildTranslator,
      // Every shard reads the one journal; each resumes only the guilds it serves.
      owns: (guildId) => ownsGuild(client.shard, guildId),
      voiceChannelOf: (guildId) => voice.channelOf(guildId),
      // Resumed requests take the speaking path too: it records what they cost and queues them.
      submit: (entry, generate) => speaking.resubmit(entry, generate),
      requeue: (entry, audio, onEnd) => speaking.replay(entry, audio, onEnd),
      clock,
      logger,
      voiceWaitMs: VOICE_RESUME_WAIT_MS,
    });
    // Stopping: nothing interrupted from here on is forgotten; resumed work stops waiting.
    opened.push(async () => {
      recorder.freeze();
      await resumer.stop();
    });
    // Forgetting a server: `/config forget`, and a removal once DATA_RETENTION is over.
    const forgetting = createForgetting({
      ...{ keyv, settings, apiKeys, usage, previews, tts, voice, logger, clock },
      ...{ journal: pending, speechCache: new KeyvSpeechCacheStore(keyv) },
      retentionMs: config.dataRetentionMs,
      owns: (guildId) => ownsGuild(client.shard, guildId),
      present: (guildId) => client.guilds.cache.has(guildId),
    });
    opened.push(() => forgetting.scheduler.stop());
    options.metrics?.watch({
      queueItems: () => sumOverGuilds(client, (id) => voice.queue(id).length),
      voiceConnections: () => sumOverGuilds(client, (id) => (voice.channelOf(id) ? 1 : 0)),
    });
    const services: Services = {
      config,
      logger,
      clock,
      settings,
      apiKeys,
      tts,
      voice,
      usage,
      speaking,
      forget: forgetting.service,
      reader: new ChatReader({
        settings,
        speaking: chatSpeaking({
          speaking,
          voice,
          join: async (guildId, channelId, textChannelId) => {
            const guild = await client.guilds.fetch(guildId);
            await voice.join({
              guildId,
              channelId,
              textChannelId,
              adapterCreator: guild.voiceAdapterCreator,
            });
          },
        }),
        clock,
        logger,
        minTextLength: config.minTextLength,
        translatorOf: guildTranslator,
      }),
      // Twitch chat, one more source of the reader (it connects once a server reads a channel).
      twitch: createTwitchSource(config.twitchChatUrl, {
        ...{ settings, clock, logger },
        reader: {
          created: (m) => services.reader.created(m),
          withdraw: (g, m) => services.reader.withdraw(g, m),
        },
        onCount: (outcome) => options.metrics?.twitchMessage(outcome),
      }),
    };
    opened.push(async () => services.reader.close());
    const route = createRouter(commands, services);
    const wire = (discord: typeof client): void => {
      discord.on(Events.InteractionCreate, (interaction) => {
        const handled = accepting ? route(interaction) : refuseWhileStopping(interaction);
        handled.catch((error: unknown) =>
          logger.error({ err: error }, 'interaction handler failed'),
        );
      });
      discord.on(Events.Error, (error) => logger.error({ err: error }, 'discord client error'));
      wireVoiceEvents(discord, voice, logger);
      wireChatEvents(discord, services.reader, logger);
      wireGuildEvents(discord, logger);
      wireRemovalEvents(discord, forgetting.scheduler, logger);
    };
    wire(client);

    try {
      await login(client, config.discordToken, options.loginTimeoutMs ?? 30_000);
    } catch (error) {
      if (!(error instanceof DisallowedIntentsError)) throw error;
      logger.error(MESSAGE_CONTENT_REFUSED);
      await client.destroy();
      client = createDiscordClient({ apiUrl: config.discordApiUrl, readMessages: false });
      wire(client);
      await login(client, config.discordToken, options.loginTimeoutMs ?? 30_000);
    }
    if (!client.isReady())
      throw new DiscordConnectError('the Discord client is not ready after login');
    // Under a shard manager only shard 0 registers: commands are per application, not per shard.
    if (client.shard === null || client.shard.ids.includes(0)) {
      await registerCommands({ client, commands, keyv, logger, guildId: config.devGuildId });
    }
    logger.info({ user: client.user.tag, guilds: client.guilds.cache.size }, 'bot is ready');
    const ready = async (): Promise<Check[]> => [
      { name: 'discord', ok: client.isReady() },
      await timedCheck('store', () => keyv.get('ops:readyz')),
    ];
    options.metrics?.watchReadiness(ready);
    const resumed = resumer.startWhenReadable();
    forgetting.scheduler.start();
    opened.push(() => services.twitch.close());
    void services.twitch.start(client.guilds.cache.keys());
    return { services, client, store: keyv, ready, stop, resumed, resumer };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Answers an interaction that arrives while the bot shuts down: no new work is taken. */
async function refuseWhileStopping(interaction: Interaction): Promise<void> {
  if (interaction.isAutocomplete()) await interaction.respond([]);
  else if (interaction.isRepliable()) {
    await interaction.reply({
      content: translatorFor(interaction.locale).t('errors.restarting'),
      flags: MessageFlags.Ephemeral,
    });
  }
}

/** The metric outcome of each way a request ends (a skip cancels the rest of it). */
const OUTCOME_OF = {
  delivered: 'delivered',
  failed: 'failed',
  skipped: 'cancelled',
  cancelled: 'cancelled',
  cached: 'cached',
} as const satisfies Record<SpeechEnd['state'] | 'cached', GenerationOutcome>;

/** Adds `count(guildId)` over the guilds this process sees. */
function sumOverGuilds(
  client: ReturnType<typeof createDiscordClient>,
  count: (guildId: string) => number,
): number {
  let total = 0;
  for (const guildId of client.guilds.cache.keys()) total += count(guildId);
  return total;
}

/** True for `redis://` and `rediss://` store addresses. */
export function isRedisUrl(storeUrl: string): boolean {
  return /^rediss?:\/\//.test(storeUrl);
}

/** The voice service the bot uses unless told otherwise. */
export function createVoiceManager(deps: VoiceDependencies): VoiceService {
  return new VoiceManager({
    ffmpegPath: deps.ffmpegPath,
    processes: deps.processes,
    logger: deps.logger,
    clock: deps.clock,
    idleMs: deps.config.voiceIdleMs,
    maxQueueLength: deps.config.queueMaxLength,
    maxPerRequester: deps.config.queueMaxPerMember,
    notify: deps.notify,
    translatorOf: deps.translatorOf,
  });
}

/** Logs in and waits for the ready event, within a time limit. */
export async function login(
  client: ReturnType<typeof createDiscordClient>,
  token: string,
  timeoutMs: number,
): Promise<void> {
  const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new DiscordConnectError(`Discord did not answer within ${timeoutMs / 1000} s`)),
      timeoutMs,
    );
  });
  try {
    await Promise.race([client.login(token).then(() => ready), timeout]);
  } catch (error) {
    if (error instanceof DiscordConnectError) throw error;
    if (error instanceof Error && /disallowed intent/i.test(error.message)) {
      throw new DisallowedIntentsError('Discord refused a privileged intent', { cause: error });
    }
    throw new DiscordConnectError(`Could not log in to Discord: ${describeLoginError(error)}`, {
      cause: error,
    });
  } finally {
    clearTimeout(timer);
  }
}

function describeLoginError(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const status = (error as { status?: unknown }).status;
  if (code === 'TokenInvalid' || status === 401)
    return 'the token was refused (check DISCORD_TOKEN)';
  const cause = (error as { cause?: { code?: unknown } }).cause?.code ?? code;
  if (typeof cause === 'string') return `Discord is unreachable (${cause}); check the network`;
  return error instanceof Error ? error.message : String(error);
}
