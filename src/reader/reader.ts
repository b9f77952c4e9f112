/**
 * The chat reader (streamer mode): a second adapter on the speaking path. Messages of the
 * read channels wait in a per-server backlog; one chat turn at a time waits in the speech
 * queue, and when its turn to generate comes it takes every fresh message it can hold, so a
 * busy chat drains at many messages per generation. Deletes and edits reach messages up to
 * the moment they are spoken.
 */
import type { Logger } from '../log/index.ts';
import type { ReaderSettings, SettingsStore } from '../store/index.ts';
import type { Clock } from '../tts/index.ts';
import type { SpeakUpdate } from '../voice/index.ts';
import { ChatBacklog, type PendingMessage } from './backlog.ts';
import { composeBatch, type LastRead } from './compose.ts';
import { readDecision } from './filter.ts';
import { cleanMessage } from './text.ts';
import type { ChatSpeaking, ChatVoice, IncomingMessage } from './types.ts';

/** The requester id chat turns have in the speech queue: the chat takes turns with `/say` members. */
export const CHAT_REQUESTER = 'chat';

/** Thrown by a turn whose messages were all deleted or went stale before it could speak. */
export class NothingToRead extends Error {
  override readonly name = 'NothingToRead';
}

/** Settings of a {@link ChatReader}. */
export interface ChatReaderOptions {
  readonly settings: Pick<SettingsStore, 'guild'>;
  readonly speaking: ChatSpeaking;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The API's shortest text. */
  readonly minTextLength: number;
  /** How long a new message waits before it may be read (a quick delete is then free). Default 1000. */
  readonly holdMs?: number;
  /** Most characters one generation holds. Default 600 (about 40 s of speech). */
  readonly batchChars?: number;
  /** Wait before asking a full queue again. Default 2000. */
  readonly retryMs?: number;
}

/** A message with the voice it is spoken in. */
interface ReaderMessage extends PendingMessage {
  readonly voice: ChatVoice;
}

interface Turn {
  batch: ReaderMessage[];
  state: 'waiting' | 'generating' | 'ready' | 'playing' | 'done';
  /** The generation under way, aborted when one of its messages is deleted or edited. */
  attempt: AbortController | undefined;
  /** A message of the batch changed after its audio was made: make it again before playing. */
  dirty: boolean;
  voice: ChatVoice | undefined;
}

interface GuildState {
  readonly backlog: ChatBacklog<ReaderMessage>;
  /** Messages handed to a turn, by id. */
  readonly held: Map<string, Turn>;
  readonly turns: Set<Turn>;
  /** The turn queued but not started: it will take whatever waits when it starts. */
  waiting: Turn | undefined;
  timer: AbortController | undefined;
  last: LastRead | undefined;
  droppedStale: number;
  reader: ReaderSettings | undefined;
  /** Message events of the server, handled one at a time in arrival order. */
  chain: Promise<void>;
  warnedNoKey: boolean;
}

/** What `/queue` shows about the chat. */
export interface ReaderStats {
  /** Messages waiting to be read. */
  readonly waiting: number;
  /** Messages dropped because they were older than `max-age` when their turn came. */
  readonly droppedStale: number;
}

/** Reads chat messages of the configured channels aloud, through the speaking path. */
export class ChatReader {
  readonly #options: ChatReaderOptions;
  readonly #logger: Logger;
  readonly #guilds = new Map<string, GuildState>();

  constructor(options: ChatReaderOptions) {
    this.#options = options;
    this.#logger = options.logger.child({ component: 'reader' });
  }

  /** A new message was posted. Resolves once it is in the backlog or ignored. */
  created(message: IncomingMessage): Promise<void> {
    const at = this.#options.clock.now();
    return this.#serial(message.guildId, () => this.#add(message, at));
  }

  /** A message was edited: it is read in its latest form, if it is not being spoken already. */
  edited(message: IncomingMessage): Promise<void> {
    return this.#serial(message.guildId, async () => {
      const state = this.#guilds.get(message.guildId);
      if (state === undefined) return;
      const guild = await this.#options.settings.guild(message.guildId);
      const spoken = cleanMessage(message.message, message.names, guild.reader, guild.dictionary);
      if (spoken.text === '') return this.#remove(message.guildId, state, message.id);
      if (state.backlog.edit(message.id, spoken)) return;
      const turn = state.held.get(message.id);
      if (turn === undefined || turn.state === 'playing' || turn.state === 'done') return;
      turn.batch = turn.batch.map((m) => (m.id === message.id ? { ...m, ...spoken } : m));
      this.#changed(turn);
    });
  }

  /** A message was deleted: it is never spoken, and costs nothing if its generation had not started. */
  deleted(guildId: string, messageId: string): Promise<void> {
    return this.#serial(guildId, async () => {
      const state = this.#guilds.get(guildId);
      if (state !== undefined) this.#remove(guildId, state, messageId);
    });
  }

  /** Drops the server's waiting messages (`/stop`); how many there were. */
  clear(guildId: string): number {
    const state = this.#guilds.get(guildId);
    if (state === undefined) return 0;
    state.timer?.abort();
    state.timer = undefined;
    return state.backlog.clear();
  }

  /** The server's chat backlog and stale count, for `/queue`. */
  stats(guildId: string): ReaderStats {
    const state = this.#guilds.get(guildId);
    return { waiting: state?.backlog.size ?? 0, droppedStale: state?.droppedStale ?? 0 };
  }

  /** Stops every timer (shutdown). */
  close(): void {
    for (const state of this.#guilds.values()) state.timer?.abort();
    this.#guilds.clear();
  }

  #serial(guildId: string, task: () => Promise<void>): Promise<void> {
    const state = this.#state(guildId);
    const run = state.chain
      .then(task)
      .catch((error: unknown) => {
        this.#logger.error({ err: error, guildId }, 'chat message handling failed');
      })
      .finally(() => {
        // A server with nothing going on keeps no state (most servers read no channel).
        const idle = state.backlog.size === 0 && state.turns.size === 0 && !state.timer;
        if (state.chain === run && idle && state.droppedStale === 0) this.#drop(guildId, state);
      });
    state.chain = run;
    return run;
  }

  #state(guildId: string): GuildState {
    let state = this.#guilds.get(guildId);
    if (state === undefined) {
      state = {
        backlog: new ChatBacklog<ReaderMessage>({
          holdMs: this.#options.holdMs ?? 1000,
          batchChars: this.#options.batchChars ?? 600,
        }),
        held: new Map(),
        turns: new Set(),
        waiting: undefined,
        timer: undefined,
        last: undefined,
        droppedStale: 0,
        reader: undefined,
        chain: Promise.resolve(),
        warnedNoKey: false,
      };
      this.#guilds.set(guildId, state);
    }
    return state;
  }

  async #add(message: IncomingMessage, at: number): Promise<void> {
    const { guildId } = message;
    const { settings, speaking } = this.#options;
    const guild = await settings.guild(guildId);
    const decision = readDecision(message, guild.reader, speaking.channelOf(guildId));
    if (!decision.read) {
      if (decision.why !== 'not-a-read-channel')
        this.#logger.debug({ guildId, messageId: message.id, why: decision.why }, 'not read');
      if (decision.why === 'not-in-voice') this.#forget(guildId);
      return;
    }
    const spoken = cleanMessage(message.message, message.names, guild.reader, guild.dictionary);
    if (spoken.text === '') return;
    if (decision.join !== undefined) {
      try {
        await speaking.join(guildId, decision.join, message.channelId);
      } catch (error) {
        this.#logger.warn({ err: error, guildId }, 'auto-join failed; message not read');
        return;
      }
    }
    const state = this.#state(guildId);
    let voice: ChatVoice;
    try {
      voice = await speaking.voiceOf(guildId, { id: message.authorId, name: message.authorName });
      state.warnedNoKey = false;
    } catch (error) {
      if (!state.warnedNoKey) this.#logger.warn({ err: error, guildId }, 'cannot read chat');
      state.warnedNoKey = true;
      return;
    }
    state.reader = guild.reader;
    state.backlog.add({
      id: message.id,
      authorId: message.authorId,
      authorName: message.authorName,
      ...spoken,
      at,
      voiceKey: voice.key,
      voice,
    });
    this.#schedule(guildId, state);
  }

  #remove(guildId: string, state: GuildState, messageId: string): void {
    if (state.backlog.delete(messageId)) return;
    const turn = state.held.get(messageId);
    if (turn === undefined || turn.state === 'done') return;
    if (turn.state === 'playing') {
      this.#options.speaking.skip(guildId);
      return;
    }
    state.held.delete(messageId);
    turn.batch = turn.batch.filter((m) => m.id !== messageId);
    this.#changed(turn);
  }

  // A message of a turn that has not played changed: make its audio again from what is left.
  #changed(turn: Turn): void {
    turn.dirty = true;
    turn.attempt?.abort(new Error('a message of the batch changed'));
  }

  // Queues a chat turn when messages are ready and none waits already.
  #schedule(guildId: string, state: GuildState): void {
    if (state.waiting !== undefined || this.#guilds.get(guildId) !== state) return;
    const readyAt = state.backlog.readyAt();
    if (readyAt === undefined) return;
    const now = this.#options.clock.now();
    if (readyAt > now) {
      this.#wake(guildId, state, readyAt - now);
      return;
    }
    const turn: Turn = {
      batch: [],
      state: 'waiting',
      attempt: undefined,
      dirty: false,
      voice: undefined,
    };
    state.waiting = turn;
    const queued = this.#options.speaking.queue({
      guildId,
      requesterId: CHAT_REQUESTER,
      requesterName: 'chat',
      text: '(chat messages)',
      source: {
        generate: (signal) => {
          if (state.waiting === turn) state.waiting = undefined;
          turn.state = 'generating';
          this.#schedule(guildId, state);
          return this.#produce(state, turn, signal);
        },
        open: async (audioUrl, signal) => {
          const url = turn.dirty ? await this.#produce(state, turn, signal) : audioUrl;
          const voice = turn.voice;
          if (voice === undefined) throw new NothingToRead('the turn has no audio');
          return voice.client.stream(url, signal);
        },
      },
      onUpdate: (update) => this.#onUpdate(guildId, state, turn, update),
    });
    if (!queued.ok) {
      state.waiting = undefined;
      this.#wake(guildId, state, this.#options.retryMs ?? 2000);
      return;
    }
    state.turns.add(turn);
  }

  #wake(guildId: string, state: GuildState, ms: number): void {
    if (state.timer !== undefined) return;
    const timer = new AbortController();
    state.timer = timer;
    this.#options.clock.sleep(ms, timer.signal).then(
      () => {
        if (state.timer !== timer) return;
        state.timer = undefined;
        this.#schedule(guildId, state);
      },
      (error: unknown) => {
        if (!timer.signal.aborted) this.#logger.warn({ err: error }, 'reader timer failed');
      },
    );
  }

  // Takes a fresh batch (putting back what the turn held) and generates it; again when a
  // message of the batch is deleted or edited before the audio is made.
  async #produce(state: GuildState, turn: Turn, signal: AbortSignal): Promise<string> {
    for (;;) {
      signal.throwIfAborted();
      this.#refill(state, turn);
      const first = turn.batch[0];
      if (first === undefined) throw new NothingToRead('every message was deleted or too old');
      const { text, last } = composeBatch(turn.batch, {
        saidPrefix: state.reader?.saidPrefix ?? true,
        minLength: this.#options.minTextLength,
        last: state.last,
      });
      state.last = last;
      const attempt = new AbortController();
      turn.attempt = attempt;
      turn.dirty = false;
      turn.voice = first.voice;
      try {
        const { audioUrl } = await first.voice.client.generate(
          { ...first.voice.request, text },
          { signal: AbortSignal.any([signal, attempt.signal]) },
        );
        if (!turn.dirty) {
          turn.state = 'ready';
          return audioUrl;
        }
      } catch (error) {
        if (signal.aborted || !attempt.signal.aborted) throw error;
      } finally {
        turn.attempt = undefined;
      }
      turn.state = 'generating';
    }
  }

  #refill(state: GuildState, turn: Turn): void {
    for (const message of turn.batch) state.held.delete(message.id);
    state.backlog.requeue(turn.batch);
    const taken = state.backlog.take(this.#options.clock.now(), state.reader?.maxAgeMs ?? 120_000);
    if (taken.stale.length > 0) {
      state.droppedStale += taken.stale.length;
      state.backlog.forget(taken.stale);
      this.#logger.info(
        { dropped: taken.stale.length, total: state.droppedStale },
        'dropped chat messages older than max-age',
      );
    }
    turn.batch = taken.batch;
    for (const message of turn.batch) state.held.set(message.id, turn);
  }

  #onUpdate(guildId: string, state: GuildState, turn: Turn, update: SpeakUpdate): void {
    switch (update.state) {
      case 'playing':
        turn.state = 'playing';
        return;
      case 'failed':
        if (!(update.error instanceof NothingToRead))
          this.#logger.warn({ err: update.error, guildId }, 'reading chat messages failed');
        this.#done(guildId, state, turn);
        return;
      case 'played':
      case 'skipped':
        this.#done(guildId, state, turn);
        return;
      case 'cancelled':
        // `/stop` or leaving voice: the backlog goes with the queue.
        this.#forget(guildId);
        this.#done(guildId, state, turn);
        return;
      default:
        return;
    }
  }

  #done(guildId: string, state: GuildState, turn: Turn): void {
    turn.state = 'done';
    turn.attempt?.abort(new Error('the turn ended'));
    state.turns.delete(turn);
    if (state.waiting === turn) state.waiting = undefined;
    for (const message of turn.batch) state.held.delete(message.id);
    state.backlog.forget(turn.batch);
    this.#schedule(guildId, state);
  }

  #drop(guildId: string, state: GuildState): void {
    if (this.#guilds.get(guildId) === state) this.#guilds.delete(guildId);
  }

  // Forgets a server's chat state (bot left voice, or /stop): nothing waiting is read later.
  #forget(guildId: string): void {
    const state = this.#guilds.get(guildId);
    if (state === undefined) return;
    state.timer?.abort();
    state.timer = undefined;
    state.backlog.clear();
    if (state.turns.size === 0) this.#drop(guildId, state);
  }
}
