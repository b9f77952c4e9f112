import type { Client } from 'discord.js';
import type Keyv from 'keyv';
import type { SendResult } from '../durable/index.ts';
import { type Translator, translatorFor } from '../i18n/index.ts';
import type { Logger } from '../log/index.ts';
import type { MetricGauges } from '../ops/index.ts';
import { ownsGuild } from '../sharding/plan.ts';
import type { VoiceService, VoiceTarget } from '../voice/index.ts';
import { createDiscordClient, MESSAGE_CONTENT_REFUSED } from './client.ts';
import type { ApiVersion, Command } from './command.ts';
import { DisallowedIntentsError, DiscordConnectError, login } from './login.ts';
import { describeFailure } from './messages.ts';
import { inviteUrl, requireBotPermissions, VOICE_PERMISSIONS } from './permissions.ts';
import { registerCommands } from './register.ts';
import { restResultSender } from './result-sender.ts';

/**
 * The bot's discord.js client, and what the parts below Discord ask of it: a guild's language,
 * a notice, a result sent by REST, whether this shard serves a guild, a voice adapter. Each
 * asks the client of the moment (it is replaced once when Discord refuses Message Content).
 */
export class DiscordSession {
  readonly #apiUrl: string | undefined;
  #client: Client;

  constructor(config: { readonly discordApiUrl: string | undefined }) {
    this.#apiUrl = config.discordApiUrl;
    // Reading chat needs the privileged Message Content intent; without it, the bot runs without.
    this.#client = createDiscordClient({ apiUrl: this.#apiUrl, readMessages: true });
  }

  /** The client logged in (or about to be). */
  get client(): Client {
    return this.#client;
  }

  /** Logs the client in and waits for it to be ready, within `timeoutMs`. */
  login(token: string, timeoutMs: number): Promise<void> {
    return login(this.#client, token, timeoutMs);
  }

  /**
   * Wires the client with `wire` and logs it in; when Discord refuses the Message Content intent,
   * says so and logs in again with a client without it (chat is not read), wired the same.
   */
  async connect(deps: {
    readonly token: string;
    readonly timeoutMs: number;
    readonly wire: (client: Client) => void;
    readonly logger: Logger;
  }): Promise<void> {
    const { token, timeoutMs, wire } = deps;
    wire(this.#client);
    try {
      await this.login(token, timeoutMs);
    } catch (error) {
      if (!(error instanceof DisallowedIntentsError)) throw error;
      deps.logger.error(MESSAGE_CONTENT_REFUSED);
      wire(await this.withoutMessages());
      await this.login(token, timeoutMs);
    }
  }

  /** Destroys the client and makes one without the Message Content intent (chat is not read). */
  async withoutMessages(): Promise<Client> {
    await this.#client.destroy();
    this.#client = createDiscordClient({ apiUrl: this.#apiUrl, readMessages: false });
    return this.#client;
  }

  /**
   * After login: checks the client is ready, registers the slash commands when they changed and
   * logs the invite link (under a shard manager from shard 0 only: both are per application).
   */
  async ready(deps: {
    readonly commands: ReadonlyMap<string, Command>;
    /** Where the registered commands' hash is kept, so unchanged commands are not sent again. */
    readonly store: { readonly keyv: Keyv };
    /** `devGuildId`: registers to this guild only (development). */
    readonly config: {
      readonly devGuildId: string | undefined;
      /** The TTS API version: the commands offer only what it can use. */
      readonly ttsApi: { readonly version: ApiVersion };
    };
    readonly logger: Logger;
  }): Promise<Client<true>> {
    const { commands, store, config, logger } = deps;
    const client = this.#client;
    if (!client.isReady())
      throw new DiscordConnectError('the Discord client is not ready after login');
    if (client.shard === null || client.shard.ids.includes(0)) {
      await registerCommands({
        client,
        commands,
        keyv: store.keyv,
        logger,
        guildId: config.devGuildId,
        api: config.ttsApi.version,
      });
    }
    logger.info({ user: client.user.tag, guilds: client.guilds.cache.size }, 'bot is ready');
    // Once per application, as its commands: under a shard manager, from shard 0 only.
    if (client.shard === null || client.shard.ids.includes(0))
      logger.info(`invite the bot to a server: ${inviteUrl(client.application.id)}`);
    return client;
  }

  /** Logs out and closes the gateway. */
  destroy(): Promise<void> {
    return this.#client.destroy();
  }

  /** Texts for a whole server (voice notices, resumed speech) follow its community locale. */
  readonly translatorOf = (guildId: string): Translator =>
    translatorFor(this.#client.guilds.cache.get(guildId)?.preferredLocale);

  /** Posts a short notice in a channel, pinging nobody. */
  readonly notify = async (_guildId: string, channelId: string, text: string): Promise<void> => {
    const channel = await this.#client.channels.fetch(channelId);
    if (channel?.isSendable())
      await channel.send({ content: text, allowedMentions: { parse: [] } });
  };

  /** Delivers a resumed request's result by REST (no interaction object after a restart). */
  readonly send: SendResult = (route, message) => restResultSender(this.#client)(route, message);

  /** The words a member reads for a failure (the one table of messages). */
  readonly describeFailure = (error: unknown, translator: Translator): string =>
    describeFailure(error, translator).text;

  /** Whether this process serves a guild: under a shard manager, only its shards' guilds. */
  readonly owns = (guildId: string): boolean => ownsGuild(this.#client.shard, guildId);

  /** Whether the bot is in a guild now (as this process sees it). */
  readonly present = (guildId: string): boolean => this.#client.guilds.cache.has(guildId);

  /** Throws a refusal naming what the bot lacks to be heard in a voice channel (auto-join). */
  readonly requireVoice = (guildId: string, channelId: string): void => {
    const channel = this.#client.guilds.cache.get(guildId)?.channels.cache.get(channelId);
    if (channel !== undefined) requireBotPermissions(channel, VOICE_PERMISSIONS);
  };

  /** A guild's voice adapter, for joining its voice channels. */
  readonly voiceAdapterOf = async (guildId: string): Promise<VoiceTarget['adapterCreator']> =>
    (await this.#client.guilds.fetch(guildId)).voiceAdapterCreator;

  /** The metric gauges read over the guilds this process sees: queued items, voice connections. */
  gauges(voice: Pick<VoiceService, 'queue' | 'channelOf'>): MetricGauges {
    return {
      queueItems: () => this.#sumOverGuilds((id) => voice.queue(id).length),
      voiceConnections: () => this.#sumOverGuilds((id) => (voice.channelOf(id) ? 1 : 0)),
    };
  }

  /** Adds `count(guildId)` over the guilds this process sees. */
  #sumOverGuilds(count: (guildId: string) => number): number {
    let total = 0;
    for (const guildId of this.#client.guilds.cache.keys()) total += count(guildId);
    return total;
  }
}
