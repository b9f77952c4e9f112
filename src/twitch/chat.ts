/**
 * Twitch chat as a source for the reader: one anonymous connection for every server, each
 * channel joined once however many servers read it, and reconnects that rejoin everything
 * without delivering a message twice.
 */
import type { Logger } from '../log/index.ts';
import type { Clock } from '../tts/index.ts';
import type { BackoffPolicy } from './backoff.ts';
import { chatEventOf } from './events.ts';
import { type IrcMessage, nickOf } from './irc.ts';
import { type JoinLimit, JoinPacer, TWITCH_JOIN_LIMIT } from './joins.ts';
import { ChatLink } from './link.ts';
import { ChatListeners, type TwitchChannelState, type TwitchChatEvents } from './listeners.ts';
import { ChannelReaders } from './readers.ts';
import { RecentIds } from './recent-ids.ts';

/** Settings of a {@link TwitchChat}. */
export interface TwitchChatOptions {
  /** `config.twitchChatUrl`: Twitch's `wss://irc-ws.chat.twitch.tv:443`, or a test server. */
  readonly url: string;
  readonly logger: Logger;
  readonly clock: Clock;
  /** [0, 1): the anonymous nick's digits and the reconnect jitter. Default Math.random. */
  readonly random?: () => number;
  /** Default: 1 s doubling to 1 min. */
  readonly backoff?: BackoffPolicy;
  /** Default: Twitch's 20 per 10 s. */
  readonly joinLimit?: JoinLimit;
  /** Message ids remembered to drop repeats. Default 5000. */
  readonly dedupeWindow?: number;
  /** Default 60 s (Twitch itself PINGs about every 5 minutes). */
  readonly pingIntervalMs?: number;
  /** Longest wait for an answer (the WebSocket handshake, a PONG) before the link is dropped. 10 s. */
  readonly answerTimeoutMs?: number;
}

const DAY_MS = 86_400_000;

/** The one way to Twitch chat: servers start and stop reading channels; events say what came. */
export class TwitchChat {
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #link: ChatLink;
  readonly #readers = new ChannelReaders();
  readonly #joined = new Set<string>();
  readonly #joins: JoinPacer;
  readonly #recent: RecentIds;
  readonly #counts = new Map<string, { day: number; count: number }>();
  readonly #listeners = new ChatListeners();

  constructor(options: TwitchChatOptions) {
    const { protocol } = new URL(options.url);
    if (protocol !== 'ws:' && protocol !== 'wss:') throw new Error('Twitch chat needs a ws(s) URL');
    this.#clock = options.clock;
    this.#logger = options.logger.child({ component: 'twitch' });
    this.#link = new ChatLink({
      ...options,
      logger: this.#logger,
      random: options.random ?? Math.random,
      wanted: () => this.#readers.channels().length > 0,
      onRegistered: () => this.#registered(),
      onLine: (message, at) => this.#onLine(message, at),
      onClosed: (why) => this.#closed(why),
    });
    this.#joins = new JoinPacer(
      options.joinLimit ?? TWITCH_JOIN_LIMIT,
      options.clock,
      this.#link.signal,
      (channel) => this.#link.send(`JOIN #${channel}`),
    );
    this.#recent = new RecentIds(options.dedupeWindow ?? 5000);
  }

  /** `serverId` starts reading `channel` (a login, see `twitchLogin`); joined once for all. */
  read(serverId: string, channel: string): void {
    if (this.#link.signal.aborted || !this.#readers.add(serverId, channel)) return;
    if (this.#link.registered) this.#pace(this.#joins.add(channel));
    this.#link.start();
  }

  /** `serverId` stops reading `channel`; the last reader parts it (the last channel disconnects). */
  stopReading(serverId: string, channel: string): void {
    if (!this.#readers.remove(serverId, channel)) return;
    if (!this.#joins.drop(channel)) this.#link.send(`PART #${channel}`);
    this.#joined.delete(channel);
    this.#counts.delete(channel);
    if (this.#readers.channels().length === 0) this.#link.drop('no channel to read');
  }

  /** `serverId` stops reading every channel (it left, or turned the reader off). */
  stopAll(serverId: string): void {
    for (const channel of this.#readers.channelsOf(serverId)) this.stopReading(serverId, channel);
  }

  /** The servers reading `channel`: who an event of that channel is for. */
  readersOf(channel: string): readonly string[] {
    return this.#readers.readersOf(channel);
  }

  /** The channels `serverId` reads. */
  channelsOf(serverId: string): readonly string[] {
    return this.#readers.channelsOf(serverId);
  }

  /** How a read channel is doing (`/config show`); undefined when nobody reads it. */
  state(channel: string): TwitchChannelState | undefined {
    if (this.#readers.readersOf(channel).length === 0) return undefined;
    const count = this.#counts.get(channel);
    const today = Math.floor(this.#clock.now() / DAY_MS);
    return {
      channel,
      connected: this.#link.registered,
      joined: this.#joined.has(channel),
      receivedToday: count?.day === today ? count.count : 0,
    };
  }

  /** Logged in to Twitch chat now. */
  get connected(): boolean {
    return this.#link.registered;
  }

  /** Listens to one kind of event; returns the function that stops listening. */
  on<K extends keyof TwitchChatEvents>(
    name: K,
    listener: (event: TwitchChatEvents[K]) => void,
  ): () => void {
    return this.#listeners.on(name, listener);
  }

  /** Disconnects for good (shutdown). */
  close(): Promise<void> {
    return this.#link.close();
  }

  #registered(): void {
    this.#logger.info({ channels: this.#readers.channels().length }, 'Twitch chat connected');
    this.#changed();
    this.#pace(this.#joins.start(this.#readers.channels()));
  }

  #closed(why: string): void {
    this.#joins.clear();
    this.#joined.clear();
    this.#logger.info({ why }, 'Twitch chat disconnected');
    this.#changed();
  }

  #pace(joining: Promise<void>): void {
    joining.catch((error: unknown) => {
      if (!this.#link.signal.aborted) this.#logger.warn({ err: error }, 'Twitch JOIN failed');
    });
  }

  #onLine(message: IrcMessage, at: number): void {
    const { command } = message;
    const channel = message.params[0]?.replace(/^#/, '');
    if ((command === 'JOIN' || command === 'PART') && nickOf(message.prefix) === this.#link.nick) {
      if (channel === undefined || this.#readers.readersOf(channel).length === 0) return;
      if (command === 'JOIN') this.#joined.add(channel);
      else this.#joined.delete(channel);
      this.#changed(channel);
      return;
    }
    if (command === 'NOTICE') {
      this.#logger.warn({ channel, notice: message.tags.get('msg-id') }, 'Twitch notice');
      return;
    }
    const event = chatEventOf(message, at);
    if (event === undefined || this.#readers.readersOf(event.channel).length === 0) return;
    if (event.kind === 'message') {
      if (!this.#recent.add(event.id)) return;
      this.#count(event.channel, at);
    }
    this.#listeners.emitChat(event, this.#logger);
  }

  #count(channel: string, at: number): void {
    const day = Math.floor(at / DAY_MS);
    const count = this.#counts.get(channel);
    this.#counts.set(channel, { day, count: count?.day === day ? count.count + 1 : 1 });
  }

  #changed(only?: string): void {
    for (const channel of only === undefined ? this.#readers.channels() : [only]) {
      const state = this.state(channel);
      if (state !== undefined) this.#listeners.emit('state', state, this.#logger);
    }
  }
}
