/**
 * Twitch chat as one more source of the reader: each message becomes an `IncomingMessage` for
 * every server reading its channel, and what Twitch withdraws (a deleted message, a chatter
 * timed out or banned, a cleared chat) is withdrawn from those servers' chat. Cleanup, filters,
 * merging and pacing are the reader's, as for Discord messages.
 */
import type { Config } from '../config/index.ts';
import type { Logger } from '../log/index.ts';
import type { PrometheusMetrics } from '../ops/index.ts';
import type { BotStore, SettingsStore } from '../store/index.ts';
import type { Clock } from '../tts/index.ts';
import {
  TwitchChat,
  type TwitchCleared,
  type TwitchDeleted,
  type TwitchMessage,
} from '../twitch/index.ts';
import type { VoiceService } from '../voice/index.ts';
import { FirstChatters } from './first-chatters.ts';
import type { ChatReader } from './reader.ts';
import {
  twitchAuthorId,
  twitchChannelId,
  twitchIncoming,
  twitchMessageId,
} from './twitch-message.ts';

/** What is counted of Twitch messages: received once each, then read or dropped per server. */
export type TwitchOutcome = 'received' | 'read' | 'dropped';

/** How one Twitch channel a server reads is doing (`/config twitch list`). */
export interface TwitchChannelStatus {
  readonly channel: string;
  /** Logged in to Twitch chat and the channel joined. */
  readonly connected: boolean;
  /** Messages this server took to read since midnight UTC. */
  readonly readToday: number;
  /** Messages this server did not read (filtered) or withdrew (moderation) since midnight UTC. */
  readonly droppedToday: number;
}

/** What a {@link TwitchSource} is built from. */
export interface TwitchSourceOptions {
  readonly chat: Pick<
    TwitchChat,
    'read' | 'stopReading' | 'channelsOf' | 'readersOf' | 'state' | 'on' | 'close'
  >;
  readonly reader: Pick<ChatReader, 'created' | 'withdraw' | 'clear'>;
  readonly settings: Pick<SettingsStore, 'guild'>;
  /**
   * Where the bot is in voice: a server not in voice drops a Twitch message before reading its
   * settings (a Twitch chatter is in no Discord voice channel, so the reader could neither read
   * it nor join for it).
   */
  readonly voice: Pick<VoiceService, 'channelOf'>;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Told of each message received, read or dropped (metrics). */
  readonly onCount?: (outcome: TwitchOutcome) => void;
}

const DAY_MS = 86_400_000;

interface DayCount {
  day: number;
  read: number;
  dropped: number;
}

/** Reads the Twitch channels each server configured into its chat reader. */
export class TwitchSource {
  readonly #options: TwitchSourceOptions;
  readonly #logger: Logger;
  readonly #counts = new Map<string, DayCount>();
  readonly #firstChatters = new FirstChatters();
  readonly #unsubscribe: (() => void)[];

  constructor(options: TwitchSourceOptions) {
    this.#options = options;
    this.#logger = options.logger.child({ component: 'twitch-source' });
    const { chat } = options;
    this.#unsubscribe = [
      chat.on('message', (message) => this.#message(message)),
      chat.on('deleted', (deleted) => this.#deleted(deleted)),
      chat.on('cleared', (cleared) => this.#cleared(cleared)),
    ];
  }

  /**
   * Reads the server's Twitch channels as its settings say now (after `/config twitch`, at
   * start): joins the new ones, leaves the removed ones. Resolves with the channels read.
   */
  async sync(guildId: string): Promise<readonly string[]> {
    const { chat, settings } = this.#options;
    const wanted = (await settings.guild(guildId)).reader.twitchChannels;
    for (const channel of chat.channelsOf(guildId))
      if (!wanted.includes(channel)) this.#stopReading(guildId, channel);
    for (const channel of wanted) chat.read(guildId, channel);
    return wanted;
  }

  /** Starts reading for every server given that has Twitch channels (at start, this process's servers). */
  async start(guildIds: Iterable<string>): Promise<void> {
    for (const guildId of guildIds) {
      try {
        await this.sync(guildId);
      } catch (error) {
        this.#logger.warn({ err: error, guildId }, 'could not start reading Twitch chat');
      }
    }
  }

  /** The server stops reading every Twitch channel (the bot was removed, or it was forgotten). */
  stopAll(guildId: string): void {
    for (const channel of this.#options.chat.channelsOf(guildId))
      this.#stopReading(guildId, channel);
  }

  // The channel's first-time chatters go with its last reader.
  #stopReading(guildId: string, channel: string): void {
    const { chat } = this.#options;
    chat.stopReading(guildId, channel);
    if (chat.readersOf(channel).length === 0) this.#firstChatters.forgetChannel(channel);
  }

  /** How each Twitch channel the server reads is doing. */
  status(guildId: string): TwitchChannelStatus[] {
    const { chat } = this.#options;
    const today = this.#today();
    return chat.channelsOf(guildId).map((channel) => {
      const state = chat.state(channel);
      const count = this.#counts.get(`${guildId}|${channel}`);
      const current = count?.day === today ? count : undefined;
      return {
        channel,
        connected: state?.connected === true && state.joined,
        readToday: current?.read ?? 0,
        droppedToday: current?.dropped ?? 0,
      };
    });
  }

  /** Stops listening and disconnects from Twitch (shutdown). */
  async close(): Promise<void> {
    for (const stop of this.#unsubscribe) stop();
    await this.#options.chat.close();
  }

  #today(): number {
    return Math.floor(this.#options.clock.now() / DAY_MS);
  }

  #count(guildId: string, channel: string, outcome: 'read' | 'dropped', by = 1): void {
    if (by === 0) return;
    const key = `${guildId}|${channel}`;
    const today = this.#today();
    let count = this.#counts.get(key);
    if (count?.day !== today) {
      count = { day: today, read: 0, dropped: 0 };
      this.#counts.set(key, count);
    }
    count[outcome] += by;
    for (let i = 0; i < by; i++) this.#options.onCount?.(outcome);
  }

  #message(message: TwitchMessage): void {
    this.#options.onCount?.('received');
    const { channel, userId, firstMessage } = message;
    const now = this.#options.clock.now();
    const joinedAt = this.#firstChatters.joinedAt(channel, userId, firstMessage, now);
    for (const guildId of this.#options.chat.readersOf(message.channel)) {
      if (this.#options.voice.channelOf(guildId) === undefined) {
        // As the reader does for a message while out of voice: nothing from before is read later.
        this.#options.reader.clear(guildId);
        this.#count(guildId, message.channel, 'dropped');
        continue;
      }
      this.#options.reader
        .created(twitchIncoming(message, guildId, joinedAt))
        .then(async (read) => {
          this.#count(guildId, message.channel, read ? 'read' : 'dropped');
          if (!read) await this.#stillWanted(guildId, message.channel);
        })
        .catch((error: unknown) => {
          this.#logger.error({ err: error, guildId }, 'Twitch message failed');
        });
    }
  }

  // A server whose settings no longer list the channel (forgotten, its data deleted after it
  // removed the bot) stops reading it; the check runs only for messages it did not read.
  async #stillWanted(guildId: string, channel: string): Promise<void> {
    const { reader } = await this.#options.settings.guild(guildId);
    if (!reader.twitchChannels.includes(channel)) this.#stopReading(guildId, channel);
  }

  #deleted(deleted: TwitchDeleted): void {
    const id = twitchMessageId(deleted.messageId);
    this.#withdraw(deleted.channel, (origin) => origin.messageId === id);
  }

  #cleared(cleared: TwitchCleared): void {
    const author = cleared.scope === 'user' ? twitchAuthorId(cleared.userId) : undefined;
    this.#withdraw(cleared.channel, (origin) => author === undefined || origin.authorId === author);
  }

  #withdraw(
    channel: string,
    matches: (origin: { messageId: string; authorId: string }) => boolean,
  ): void {
    const channelId = twitchChannelId(channel);
    for (const guildId of this.#options.chat.readersOf(channel)) {
      this.#options.reader
        .withdraw(guildId, (origin) => origin.channelId === channelId && matches(origin))
        .then(
          (count) => this.#count(guildId, channel, 'dropped', count),
          (error: unknown) =>
            this.#logger.error({ err: error, guildId }, 'Twitch withdrawal failed'),
        );
    }
  }
}

/** The bot's Twitch source: its own connection to `TWITCH_CHAT_URL`, made once a server reads a channel. */
export function createTwitchSource(deps: {
  readonly config: Pick<Config, 'twitchChatUrl'>;
  readonly store: Pick<BotStore, 'settings'>;
  readonly reader: TwitchSourceOptions['reader'];
  readonly voice: TwitchSourceOptions['voice'];
  readonly clock: Clock;
  readonly logger: Logger;
  /** Counts Twitch messages received, read and dropped; nowhere when absent. */
  readonly metrics?: Pick<PrometheusMetrics, 'twitchMessage'> | undefined;
}): TwitchSource {
  const { clock, logger, metrics } = deps;
  const chat = new TwitchChat({ url: deps.config.twitchChatUrl, logger, clock });
  return new TwitchSource({
    ...{ chat, clock, logger, reader: deps.reader, voice: deps.voice },
    settings: deps.store.settings,
    onCount: (outcome) => metrics?.twitchMessage(outcome),
  });
}
