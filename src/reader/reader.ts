/**
 * The chat reader (streamer mode): a second adapter on the speaking path. Messages of the
 * read channels wait in a per-server backlog; one chat turn at a time waits in the speech
 * queue, and when its turn to generate comes it takes every fresh message it can hold, so a
 * busy chat drains at many messages per generation (see `GuildReader`).
 */
import { english } from '../i18n/index.ts';
import type { Logger } from '../log/index.ts';
import { BlocklistCache } from '../speech/index.ts';
import type { ChatReaderOptions, ReaderStats } from './chat-reader-options.ts';
import { type CrowdPhrases, crowdPhrases } from './crowd-phrases.ts';
import { readDecision } from './filter.ts';
import { GuildReader, type MessageOrigin } from './guild-reader.ts';
import { linePhrases } from './line-phrases.ts';
import { MessageScreen } from './message-screen.ts';
import { type ReaderPhrases, readerPhrases } from './phrases.ts';
import { hasPriority } from './priority.ts';
import { RecentSaid } from './recent-said.ts';
import { SkipCounts } from './skip-counts.ts';
import { hasMemberSettings, type Speaker, speakerOf } from './speaker.ts';
import type { ChatSpeaking, ChatVoice, IncomingMessage } from './types.ts';

/** Reads chat messages of the configured channels aloud, through the speaking path. */
export class ChatReader {
  readonly #options: ChatReaderOptions;
  readonly #logger: Logger;
  readonly #guilds = new Map<string, GuildReader>();
  /** What the rules kept from being read, per server: kept apart from the readers, which go when idle. */
  readonly #skips: SkipCounts;
  /** Messages and names cleaned and screened with the server's blocked words. */
  readonly #texts: MessageScreen;
  /** Each author's recent text, in servers with blocked words: a word spelled over messages. */
  readonly #recent = new RecentSaid();

  constructor(options: ChatReaderOptions) {
    this.#options = options;
    this.#logger = options.logger.child({ component: 'reader' });
    this.#texts = new MessageScreen(options.blocklists ?? new BlocklistCache());
    this.#skips = new SkipCounts({ clock: options.clock, logger: this.#logger });
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
   * edit passes the same filters and the same screen as a new message (read channel, members,
   * prefixes, blocked words after what its author said before it, in the line's language): one
   * that fails them now is not read. An edit of a message the reader does not hold costs nothing.
   */
  edited(message: IncomingMessage): Promise<void> {
    return this.#serial(message.guildId, async (reader) => {
      const held = reader.held(message.id);
      if (held === undefined) return;
      await this.#edit(reader, message, held);
      // The author may have opted out since: asked once the edit is in, as a store read before
      // it would let a turn about to start take the old text.
      if (reader.held(message.id) === undefined || (await this.#speaker(message)).read) return;
      this.#logger.debug(
        { guildId: message.guildId, messageId: message.id, why: 'opted-out' },
        'edit not read',
      );
      reader.remove(message.id);
    });
  }

  // An edit of a message the reader holds, checked and screened as a new message is.
  async #edit(
    reader: GuildReader,
    message: IncomingMessage,
    held: NonNullable<ReturnType<GuildReader['held']>>,
  ): Promise<void> {
    const { guildId } = message;
    const at = this.#options.clock.now();
    const guild = await this.#options.settings.guild(guildId);
    const decision = readDecision(
      message,
      guild.reader,
      this.#options.speaking.channelOf(guildId),
      at,
    );
    if (!decision.read) {
      this.#logger.debug({ guildId, messageId: message.id, why: decision.why }, 'edit not read');
      reader.remove(message.id);
      return;
    }
    const phrases = this.#phrases(guildId);
    const crowd = this.#crowd(guildId);
    const recentKey = `${guildId}:${message.authorId}`;
    // What the author said before this message, without its own old text, and after it.
    const before = this.#recent.before(recentKey, at, message.id);
    const after = this.#recent.after(recentKey, at, message.id);
    const screened = this.#texts.screen(
      guild,
      this.#texts.clean(message, guild, phrases),
      crowd,
      before,
      after,
    );
    // The edit read in `voice`'s language, as a new message is (its glue, bleeps and extras);
    // false when a blocked word keeps it from being read.
    const apply = (voice: ChatVoice, change?: ChatVoice): boolean => {
      const line = linePhrases({ phrases, crowd }, voice.request.language);
      const spoken =
        screened === undefined
          ? undefined
          : this.#texts.inLine(message, guild, screened, phrases, line, before, after);
      if (spoken === undefined) {
        this.#skips.count(guildId, 'blocked');
        this.#logger.debug({ guildId, messageId: message.id }, 'edit not read: blocked word');
        reader.remove(message.id);
        if (guild.blockedWords.length > 0) this.#recent.unsaid(recentKey, message.id, at);
        return false;
      }
      reader.edit(message.id, spoken, change);
      if (guild.blockedWords.length > 0) this.#recent.said(recentKey, message.id, spoken.text, at);
      return true;
    };
    // At once in the language it is held in (a turn about to take it takes the edit), then,
    // while it still waits, in the voice of its new text's language if that is another.
    if (!apply(held.message.voice) || !held.waiting || screened === undefined) return;
    const voice = await this.#editVoice(message, screened.text, held.message.voice);
    if (voice.key === held.message.voiceKey || reader.held(message.id)?.waiting !== true) return;
    apply(voice, voice);
  }

  // The voice an edit still waiting is read in: chosen on its new text (its language may have
  // changed), else, when the speaking path refuses now (a share used up since), the one it had.
  async #editVoice(message: IncomingMessage, text: string, had: ChatVoice): Promise<ChatVoice> {
    try {
      return await this.#options.speaking.voiceOf(message.guildId, chatterOf(message), text);
    } catch (error) {
      this.#logger.debug({ err: error, guildId: message.guildId }, 'edit read in its voice');
      return had;
    }
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

  /**
   * The server was forgotten (`/config forget`): what the reader holds of it in memory goes
   * too: its waiting messages, each author's recent text (kept up to a minute to catch a
   * blocked word spelled over messages) and its counts.
   */
  forget(guildId: string): void {
    this.#guilds.get(guildId)?.clear();
    this.#recent.forget(`${guildId}:`);
    this.#skips.forget(guildId);
  }

  /** The server's chat backlog, and what each rule kept from being read, for `/queue`. */
  stats(guildId: string): ReaderStats {
    const reader = this.#guilds.get(guildId);
    const skips = this.#skips.of(guildId);
    return {
      waiting: reader?.waiting ?? 0,
      waitingPaid: reader?.waitingPaid ?? 0,
      paidOverCap: reader?.paidOverCap ?? 0,
      droppedStale: reader?.droppedStale ?? 0,
      collapsed: reader?.collapsed ?? 0,
      blocked: skips?.blocked ?? 0,
      newMember: skips?.newMember ?? 0,
      refused: skips?.refused ?? 0,
    };
  }

  /** Stops every timer (shutdown). */
  close(): void {
    for (const reader of this.#guilds.values()) reader.clear();
    this.#guilds.clear();
  }

  #phrases(guildId: string): ReaderPhrases {
    return readerPhrases(this.#options.translatorOf?.(guildId) ?? english);
  }

  #crowd(guildId: string): CrowdPhrases {
    return crowdPhrases(this.#options.translatorOf?.(guildId) ?? english);
  }

  // Whether the author is read, and under which name, by their own settings in the server.
  async #speaker(message: IncomingMessage): Promise<Speaker> {
    const member = hasMemberSettings(message)
      ? await this.#options.members.get(message.guildId, message.authorId)
      : {};
    return speakerOf(message, member);
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
        holdQuietChat: this.#options.holdQuietChat ?? false,
        batchChars: this.#options.batchChars ?? 600,
        retryMs: this.#options.retryMs ?? 2000,
        busyChat: this.#options.busyChat ?? true,
        onCleared: () => {
          if (!created.busy) this.#drop(guildId, created);
        },
        onTurnFailed: (messages, error) => this.#skips.turnFailed(guildId, messages, error),
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
    const decision = readDecision(message, guild.reader, speaking.channelOf(guildId), at);
    if (!decision.read) {
      if (decision.why === 'new-member') this.#skips.count(guildId, 'newMember');
      if (decision.why !== 'not-a-read-channel')
        this.#logger.debug({ guildId, messageId: message.id, why: decision.why }, 'not read');
      // Not in voice any more: nothing waiting from before is read later.
      if (decision.why === 'not-in-voice') reader.clear();
      return false;
    }
    // Read only now: most messages are in channels the server does not read.
    const speaker = await this.#speaker(message);
    if (!speaker.read) {
      this.#logger.debug({ guildId, messageId: message.id, why: 'opted-out' }, 'not read');
      return false;
    }
    const phrases = this.#phrases(guildId);
    const crowd = this.#crowd(guildId);
    const cleaned = this.#texts.clean(message, guild, phrases);
    // A cheer is read with no text of its own ("Bobby cheered 100 bits").
    if (cleaned.text === '' && message.cheer === undefined) return false;
    const recentKey = `${guildId}:${message.authorId}`;
    const before = this.#recent.before(recentKey, at);
    const screened = this.#texts.screen(guild, cleaned, crowd, before);
    const authorName = this.#texts.screenName(guild, speaker.name, crowd);
    if (screened === undefined || authorName === undefined) {
      this.#skips.count(guildId, 'blocked');
      this.#logger.debug({ guildId, messageId: message.id }, 'not read: blocked word');
      return false;
    }
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
      voice = await speaking.voiceOf(guildId, chatterOf(message), screened.text);
    } catch (error) {
      this.#skips.refused(guildId, error);
      return false;
    }
    // The voice reads the line in its own language (v3): what the reader adds is in it too.
    const line = linePhrases({ phrases, crowd }, voice.request.language);
    const spoken = this.#texts.inLine(message, guild, screened, phrases, line, before);
    // Its own language's words (a link described as "un lien") can trip what the server's passed.
    if (spoken === undefined) {
      this.#skips.count(guildId, 'blocked');
      this.#logger.debug({ guildId, messageId: message.id }, 'not read: blocked word');
      return false;
    }
    const read =
      message.cheer === undefined
        ? spoken
        : {
            ...spoken,
            kind: 'said' as const,
            text: line.phrases.cheered(message.cheer, spoken.text),
          };
    const name =
      line.crowd === crowd
        ? authorName
        : (this.#texts.screenName(guild, speaker.name, line.crowd) ?? authorName);
    reader.settings = guild.reader;
    reader.phrases = phrases;
    reader.crowd = crowd;
    const standing = {
      roleIds: message.roleIds,
      ...(message.badges ? { badges: message.badges } : {}),
    };
    reader.add(
      {
        id: message.id,
        authorId: message.authorId,
        authorName: name,
        ...read,
        kind: message.action === true && read.kind === 'said' ? 'did' : read.kind,
        at,
        voiceKey: voice.key,
        voice,
        priority: hasPriority(standing, guild.reader.priorityRoles),
        ...(message.paid === true ? { paid: true } : {}),
      },
      message.channelId,
    );
    if (guild.blockedWords.length > 0) this.#recent.said(recentKey, message.id, spoken.text, at);
    return true;
  }
}

/** The author of a chat message as the speaking path takes a chatter (their voice, if they chose one). */
function chatterOf(message: IncomingMessage): Parameters<ChatSpeaking['voiceOf']>[1] {
  return {
    id: message.authorId,
    name: message.authorName,
    ...(message.voiceId === undefined ? {} : { voiceId: message.voiceId }),
  };
}
