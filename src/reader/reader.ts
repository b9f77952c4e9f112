/**
 * The chat reader (streamer mode): a second adapter on the speaking path. Messages of the
 * read channels wait in a per-server backlog; one chat turn at a time waits in the speech
 * queue, and when its turn to generate comes it takes every fresh message it can hold, so a
 * busy chat drains at many messages per generation (see `GuildReader`).
 */
import { english, type Translator } from '../i18n/index.ts';
import type { Logger } from '../log/index.ts';
import type { SettingsStore } from '../store/index.ts';
import type { Clock } from '../tts/index.ts';
import { readDecision } from './filter.ts';
import { GuildReader, type MessageOrigin } from './guild-reader.ts';
import { type ReaderPhrases, readerPhrases } from './phrases.ts';
import { cleanMessage } from './text.ts';
import type { ChatSpeaking, ChatVoice, IncomingMessage } from './types.ts';

/** Settings of a {@link ChatReader}. */
export interface ChatReaderOptions {
  readonly settings: Pick<SettingsStore, 'guild'>;
  readonly speaking: ChatSpeaking;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The API's shortest text. */
  readonly minTextLength: number;
  /** How long the oldest message waits before a turn starts (a quick delete is then free). Default 1000. */
  readonly holdMs?: number;
  /** Most characters one generation holds. Default 600 (about 40 s of speech). */
  readonly batchChars?: number;
  /** Wait before asking a full queue again. Default 2000. */
  readonly retryMs?: number;
  /** The language of a server (its community locale): the words read around its chat. Default English. */
  readonly translatorOf?: (guildId: string) => Translator;
}

/** What `/queue` shows about the chat. */
export interface ReaderStats {
  /** Messages waiting to be read. */
  readonly waiting: number;
  /** Messages dropped because they could not be heard within `max-age` of being posted. */
  readonly droppedStale: number;
}

/** Reads chat messages of the configured channels aloud, through the speaking path. */
export class ChatReader {
  readonly #options: ChatReaderOptions;
  readonly #logger: Logger;
  readonly #guilds = new Map<string, GuildReader>();

  constructor(options: ChatReaderOptions) {
    this.#options = options;
    this.#logger = options.logger.child({ component: 'reader' });
  }

  /** A new message was posted. Resolves once it is in the backlog (true) or ignored (false). */
  async created(message: IncomingMessage): Promise<boolean> {
    const at = this.#options.clock.now();
    let added = false;
    await this.#serial(message.guildId, async (guild) => {
      added = await this.#add(guild, message, at);
    });
    return added;
  }

  /**
   * A message was edited: it is read in its latest form, if it is not being spoken already. The
   * edit passes the same filters as a new message (read channel, members, prefixes…): one that
   * fails them now is not read. An edit of a message the reader does not hold costs nothing.
   */
  edited(message: IncomingMessage): Promise<void> {
    return this.#serial(message.guildId, async (reader) => {
      if (!reader.holds(message.id)) return;
      const { guildId } = message;
      const guild = await this.#options.settings.guild(guildId);
      const decision = readDecision(
        message,
        guild.reader,
        this.#options.speaking.channelOf(guildId),
      );
      if (!decision.read) {
        this.#logger.debug({ guildId, messageId: message.id, why: decision.why }, 'edit not read');
        reader.remove(message.id);
        return;
      }
      const phrases = this.#phrases(guildId);
      reader.edit(
        message.id,
        cleanMessage(message.message, message.names, guild.reader, phrases, guild.dictionary),
      );
    });
  }

  /** A message was deleted: it is never spoken, and costs nothing if its generation had not started. */
  deleted(guildId: string, messageId: string): Promise<void> {
    return this.#serial(guildId, async (reader) => reader.remove(messageId));
  }

  /**
   * A source withdrew messages (Twitch: a chatter timed out or banned, a chat cleared): each
   * held one matching is treated as deleted. Resolves with how many there were.
   */
  async withdraw(guildId: string, matches: (origin: MessageOrigin) => boolean): Promise<number> {
    let count = 0;
    await this.#serial(guildId, async (reader) => {
      count = reader.withdraw(matches);
    });
    return count;
  }

  /** Drops the server's waiting messages (`/stop`); how many there were. */
  clear(guildId: string): number {
    return this.#guilds.get(guildId)?.clear() ?? 0;
  }

  /** The server's chat backlog and stale count, for `/queue`. */
  stats(guildId: string): ReaderStats {
    const reader = this.#guilds.get(guildId);
    return { waiting: reader?.waiting ?? 0, droppedStale: reader?.droppedStale ?? 0 };
  }

  /** Stops every timer (shutdown). */
  close(): void {
    for (const reader of this.#guilds.values()) reader.clear();
    this.#guilds.clear();
  }

  #phrases(guildId: string): ReaderPhrases {
    return readerPhrases(this.#options.translatorOf?.(guildId) ?? english);
  }

  #serial(guildId: string, task: (reader: GuildReader) => Promise<void>): Promise<void> {
    const reader = this.#reader(guildId);
    const run = reader.chain
      .then(() => task(reader))
      .catch((error: unknown) => {
        this.#logger.error({ err: error, guildId }, 'chat message handling failed');
      })
      .finally(() => {
        // A server with nothing going on keeps no state (most servers read no channel).
        if (reader.chain === run && reader.idle) this.#drop(guildId, reader);
      });
    reader.chain = run;
    return run;
  }

  #reader(guildId: string): GuildReader {
    let reader = this.#guilds.get(guildId);
    if (reader === undefined) {
      const created: GuildReader = new GuildReader({
        guildId,
        speaking: this.#options.speaking,
        clock: this.#options.clock,
        logger: this.#logger,
        minTextLength: this.#options.minTextLength,
        holdMs: this.#options.holdMs ?? 1000,
        batchChars: this.#options.batchChars ?? 600,
        retryMs: this.#options.retryMs ?? 2000,
        onCleared: () => {
          if (!created.busy) this.#drop(guildId, created);
        },
      });
      reader = created;
      this.#guilds.set(guildId, reader);
    }
    return reader;
  }

  #drop(guildId: string, reader: GuildReader): void {
    if (this.#guilds.get(guildId) === reader) this.#guilds.delete(guildId);
  }

  async #add(reader: GuildReader, message: IncomingMessage, at: number): Promise<boolean> {
    const { guildId } = message;
    const { settings, speaking } = this.#options;
    const guild = await settings.guild(guildId);
    const decision = readDecision(message, guild.reader, speaking.channelOf(guildId));
    if (!decision.read) {
      if (decision.why !== 'not-a-read-channel')
        this.#logger.debug({ guildId, messageId: message.id, why: decision.why }, 'not read');
      // Not in voice any more: nothing waiting from before is read later.
      if (decision.why === 'not-in-voice') reader.clear();
      return false;
    }
    const phrases = this.#phrases(guildId);
    const spoken = cleanMessage(
      message.message,
      message.names,
      guild.reader,
      phrases,
      guild.dictionary,
    );
    if (spoken.text === '') return false;
    if (decision.join !== undefined) {
      try {
        await speaking.join(guildId, decision.join, message.channelId);
      } catch (error) {
        this.#logger.warn({ err: error, guildId }, 'auto-join failed; message not read');
        return false;
      }
    }
    let voice: ChatVoice;
    try {
      voice = await speaking.voiceOf(guildId, { id: message.authorId, name: message.authorName });
      reader.warnedNoKey = false;
    } catch (error) {
      if (!reader.warnedNoKey) this.#logger.warn({ err: error, guildId }, 'cannot read chat');
      reader.warnedNoKey = true;
      return false;
    }
    reader.settings = guild.reader;
    reader.phrases = phrases;
    reader.add(
      {
        id: message.id,
        authorId: message.authorId,
        authorName: message.authorName,
        ...spoken,
        kind: message.action === true && spoken.kind === 'said' ? 'did' : spoken.kind,
        at,
        voiceKey: voice.key,
        voice,
      },
      message.channelId,
    );
    return true;
  }
}
