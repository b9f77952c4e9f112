/**
 * Twitch chat as one more source of the reader: each message becomes an `IncomingMessage` for
 * every server reading its channel, and what Twitch withdraws (a deleted message, a chatter
 * timed out or banned, a cleared chat) is withdrawn from those servers' chat. Cleanup, filters,
 * merging and pacing are the reader's, as for Discord messages.
 */
import type { Logger } from '../log/index.ts';
import {
  type GuildSettings,
  type KeyvChatVoices,
  type SettingsStore,
  TWITCH_BOUNDS,
} from '../store/index.ts';
import type { Clock, Voice } from '../tts/index.ts';
import type {
  TwitchChat,
  TwitchChatCommand,
  TwitchCleared,
  TwitchDeleted,
  TwitchMessage,
} from '../twitch/index.ts';
import type { VoiceService } from '../voice/index.ts';
import { ChatVoiceChoices } from './chat-voice-choices.ts';
import { FirstChatters } from './first-chatters.ts';
import type { ChatReader } from './reader.ts';
import { SerialChains } from './serial-chains.ts';
import { type LearnedReward, RecentLogins, RewardLearning } from './twitch-learning.ts';
import {
  twitchAuthorId,
  twitchChannelId,
  twitchIncoming,
  twitchMessageId,
} from './twitch-message.ts';
import { afterCommand, twitchTake } from './twitch-take.ts';

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
  readonly settings: Pick<SettingsStore, 'guild' | 'updateGuild'>;
  /**
   * Where the bot is in voice: a server not in voice drops a Twitch message before reading its
   * settings (a Twitch chatter is in no Discord voice channel, so the reader could neither read
   * it nor join for it), unless it can be a chat command. `skip` is `!tts skip`.
   */
  readonly voice: Pick<VoiceService, 'channelOf' | 'skip'>;
  /** The voices of the server's key for its model: what `!voice <name>` is matched against. */
  readonly voices: (guildId: string) => Promise<readonly Voice[]>;
  /** Where each chatter's `!voice` choice is kept (`KeyvChatVoices`). */
  readonly chosenVoices: Pick<KeyvChatVoices, 'get' | 'set' | 'delete' | 'count'>;
  /** Between two `!voice` of one chatter (`VOICE_COOLDOWN_MS` by default). */
  readonly voiceCooldownMs?: number;
  /** Messages one server may have waiting to be handled (`CHAIN_BOUND` by default). */
  readonly chainBound?: number;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Told of each message received, read or dropped (metrics). */
  readonly onCount?: (outcome: TwitchOutcome) => void;
}

const DAY_MS = 86_400_000;

/** A chat command starts with a character that is no letter, digit or space (see the prefix). */
const COMMAND_START = /^[^\p{L}\p{N}\s]/u;

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
  readonly #learning: RewardLearning;
  readonly #logins = new RecentLogins(10_000);
  /** Each server's messages, one at a time and bounded. */
  readonly #chains: SerialChains;
  readonly #choices: ChatVoiceChoices;

  constructor(options: TwitchSourceOptions) {
    this.#options = options;
    this.#logger = options.logger.child({ component: 'twitch-source' });
    this.#learning = new RewardLearning(options.clock);
    this.#chains = new SerialChains((error, guildId) => {
      this.#logger.error({ err: error, guildId }, 'Twitch message failed');
    }, options.chainBound);
    this.#choices = new ChatVoiceChoices({
      store: options.chosenVoices,
      settings: options.settings,
      voices: options.voices,
      clock: options.clock,
      logger: this.#logger,
      ...(options.voiceCooldownMs === undefined ? {} : { cooldownMs: options.voiceCooldownMs }),
    });
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
    const guild = await settings.guild(guildId);
    const wanted = guild.reader.twitchChannels;
    // Chatters' voices an earlier version kept in the server's record move to their own (read
    // from there until then: a failed move is tried again at the next sync).
    try {
      const moved = await this.#choices.migrate(guildId, guild);
      if (moved > 0) this.#logger.info({ guildId, moved }, 'Twitch chatters’ voices moved');
    } catch (error) {
      this.#logger.warn({ err: error, guildId }, 'Twitch chatters’ voices not moved yet');
    }
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
    this.#chains.forget(guildId);
  }

  /** How many of the server's chatters chose their voice with `!voice` (`/config twitch list`). */
  async chosenVoices(guildId: string): Promise<number> {
    const guild = await this.#options.settings.guild(guildId);
    const legacy = Object.keys(guild.twitch.voices).length;
    return legacy + (await this.#options.chosenVoices.count(guildId));
  }

  /**
   * Twitch messages the server dropped unread since start because too many of its messages
   * waited to be handled (a chat faster than the server could take it; `/queue` shows it).
   */
  overflow(guildId: string): number {
    return this.#chains.dropped(guildId);
  }

  // The channel's first-time chatters go with its last reader.
  #stopReading(guildId: string, channel: string): void {
    const { chat } = this.#options;
    chat.stopReading(guildId, channel);
    if (chat.readersOf(channel).length === 0) {
      this.#firstChatters.forgetChannel(channel);
      this.#logins.forgetChannel(channel);
    }
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

  /**
   * The server learns its TTS reward from the next redemption with text in a channel it reads
   * (`/config twitch reward learn`): resolves with it once stored, or undefined after `withinMs`
   * or when another learn replaces this one.
   */
  learnReward(guildId: string, withinMs: number): Promise<LearnedReward | undefined> {
    return this.#learning.wait(guildId, withinMs);
  }

  #message(message: TwitchMessage): void {
    this.#options.onCount?.('received');
    const { channel, userId, firstMessage } = message;
    const now = this.#options.clock.now();
    const joinedAt = this.#firstChatters.joinedAt(channel, userId, firstMessage, now);
    this.#logins.seen(channel, message.login, userId);
    // Only a command (its prefix starts with a symbol) or a reward to learn needs the settings
    // of a server out of voice; everything else is dropped before reading them.
    const mayAct = COMMAND_START.test(message.text.trimStart());
    for (const guildId of this.#options.chat.readersOf(message.channel)) {
      const inVoice = this.#options.voice.channelOf(guildId) !== undefined;
      if (!inVoice && !mayAct && !this.#learning.has(guildId)) {
        this.#outOfVoice(guildId, channel);
        continue;
      }
      // One message at a time per server, so its messages reach the reader in order.
      const taken = this.#chains.run(guildId, () =>
        this.#handle(guildId, message, inVoice, joinedAt),
      );
      if (!taken) this.#count(guildId, channel, 'dropped');
    }
  }

  // As the reader does for a message while out of voice: nothing from before is read later.
  #outOfVoice(guildId: string, channel: string): void {
    this.#options.reader.clear(guildId);
    this.#count(guildId, channel, 'dropped');
  }

  async #handle(
    guildId: string,
    message: TwitchMessage,
    inVoice: boolean,
    joinedAt: number | undefined,
  ): Promise<void> {
    const { channel } = message;
    let guild = await this.#options.settings.guild(guildId);
    if (!guild.reader.twitchChannels.includes(channel)) {
      this.#stopReading(guildId, channel);
      return;
    }
    if (message.rewardId !== undefined && message.text.trim() !== '')
      guild = await this.#learn(guildId, guild, message);
    const take = twitchTake(message, guild.twitch);
    if (take.kind === 'command') {
      await this.#command(guildId, guild, message, take.command);
      return;
    }
    if (take.kind === 'skip') {
      this.#logger.debug({ guildId, why: take.why }, 'Twitch message not read');
      this.#count(guildId, channel, 'dropped');
      return;
    }
    if (!inVoice) {
      this.#outOfVoice(guildId, channel);
      return;
    }
    const voiceId = await this.#choices.voiceOf(guildId, guild, message.userId);
    const reading = { ...take, ...(voiceId === undefined ? {} : { voiceId }) };
    // Not awaited: the reader keeps the server's messages in the order they are handed over.
    this.#options.reader.created(twitchIncoming(message, guildId, joinedAt, reading)).then(
      (read) => this.#count(guildId, channel, read ? 'read' : 'dropped'),
      (error: unknown) => this.#logger.error({ err: error, guildId }, 'Twitch message failed'),
    );
  }

  // A redemption with text while the server learns its reward: that reward is the server's.
  async #learn(
    guildId: string,
    guild: GuildSettings,
    message: TwitchMessage,
  ): Promise<GuildSettings> {
    const { rewardId } = message;
    if (!this.#learning.has(guildId) || rewardId === undefined) return guild;
    const saved = await this.#options.settings.updateGuild(guildId, (stored) => ({
      ...stored,
      twitch: { ...stored.twitch, rewardId },
    }));
    this.#logger.info({ guildId, channel: message.channel }, 'Twitch reward learned');
    this.#learning.taught(guildId, {
      rewardId,
      channel: message.channel,
      displayName: message.displayName,
    });
    return saved;
  }

  // Chatters' `!voice …` (each in their own record) and moderators' `!tts …` (in the server's
  // Twitch settings, written only when they change).
  async #command(
    guildId: string,
    guild: GuildSettings,
    message: TwitchMessage,
    command: TwitchChatCommand,
  ): Promise<void> {
    if (command.kind === 'voice') {
      const outcome = await this.#choices.choose(guildId, guild, message.userId, command.name);
      this.#logger.debug({ guildId, command: command.kind, outcome }, 'Twitch chat command');
      return;
    }
    this.#logger.info({ guildId, command: command.kind }, 'Twitch chat command');
    if (command.kind === 'unknown') return;
    if (command.kind === 'skip') {
      this.#options.voice.skip(guildId);
      return;
    }
    if (command.kind === 'mute' && command.login === message.channel) {
      this.#logger.info({ guildId }, 'Twitch mute of the broadcaster refused');
      return;
    }
    if (afterCommand(guild.twitch, command, message.channel, TWITCH_BOUNDS) !== undefined) {
      await this.#options.settings.updateGuild(guildId, (stored) => {
        const twitch = afterCommand(stored.twitch, command, message.channel, TWITCH_BOUNDS);
        return twitch === undefined ? stored : { ...stored, twitch };
      });
    }
    // A muted chatter's messages already waiting are not read either.
    const muted = command.kind === 'mute' && this.#logins.userId(message.channel, command.login);
    if (typeof muted === 'string') {
      const channelId = twitchChannelId(message.channel);
      const authorId = twitchAuthorId(muted);
      const count = await this.#options.reader.withdraw(
        guildId,
        (origin) => origin.channelId === channelId && origin.authorId === authorId,
      );
      this.#count(guildId, message.channel, 'dropped', count);
    }
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
      // After the messages received before it have reached the reader; never dropped.
      this.#chains.run(
        guildId,
        async () => {
          const count = await this.#options.reader.withdraw(
            guildId,
            (origin) => origin.channelId === channelId && matches(origin),
          );
          this.#count(guildId, channel, 'dropped', count);
        },
        false,
      );
    }
  }
}
