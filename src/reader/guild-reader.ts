/**
 * One server's chat reading: its backlog, the chat turn waiting in the speech queue, and the
 * turns generating or playing. A turn takes its batch when its generation starts; a delete or
 * edit of one of its messages makes it again from what is left, up to the moment it plays.
 */
import type { Logger } from '../log/index.ts';
import { DEFAULT_MAX_AGE_MS, type ReaderSettings } from '../store/index.ts';
import type { Clock } from '../tts/index.ts';
import type { SpeakUpdate } from '../voice/index.ts';
import { batchCost, ChatBacklog, type PendingMessage } from './backlog.ts';
import { composeBatch, type LastRead } from './compose.ts';
import { nextTurnAt } from './pacing.ts';
import { ENGLISH_PHRASES, type ReaderPhrases } from './phrases.ts';
import { SpeechRate } from './speech-rate.ts';
import type { SpokenMessage } from './text.ts';
import type { ChatSpeaking, ChatVoice } from './types.ts';

/** The requester id chat turns have in the speech queue: the chat takes turns with `/say` members. */
export const CHAT_REQUESTER = 'chat';

/**
 * Share of max-age the speech forecast aims at: a message is read only if it is forecast to
 * be heard within three quarters of max-age, leaving the rest for what the forecast cannot
 * see (a `/say` item in between, the generation itself, a voice slower than learned).
 */
export const FORECAST_SHARE = 0.75;

/** Thrown by a turn whose messages were all deleted or went stale before it could speak. */
export class NothingToRead extends Error {
  override readonly name = 'NothingToRead';
}

/** A message with the voice it is spoken in. */
export interface ReaderMessage extends PendingMessage {
  readonly voice: ChatVoice;
}

/** Settings of a {@link GuildReader}. */
export interface GuildReaderOptions {
  readonly guildId: string;
  readonly speaking: ChatSpeaking;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly minTextLength: number;
  readonly holdMs: number;
  readonly batchChars: number;
  readonly retryMs: number;
  /** `/stop` or leaving voice cleared the server's chat. */
  readonly onCleared: () => void;
}

interface Turn {
  batch: ReaderMessage[];
  state: 'waiting' | 'generating' | 'ready' | 'playing' | 'done';
  /** The generation under way, aborted when one of its messages is deleted or edited. */
  attempt: AbortController | undefined;
  /** A message of the batch changed after its audio was made: make it again before playing. */
  dirty: boolean;
  voice: ChatVoice | undefined;
  /** Characters of the batch as the backlog counts them, for the speech forecast. */
  cost: number;
  /** When it started playing. */
  playingSince: number | undefined;
}

/** The chat of one server on its way to speech. */
export class GuildReader {
  /** The server's reader settings as last seen with a message. */
  settings: ReaderSettings | undefined;
  /** The server's spoken phrases (its language) as last seen with a message. */
  phrases: ReaderPhrases = ENGLISH_PHRASES;
  /** Message events of the server, handled one at a time in arrival order. */
  chain: Promise<void> = Promise.resolve();
  /** A missing key was logged once already. */
  warnedNoKey = false;
  #droppedStale = 0;
  readonly #options: GuildReaderOptions;
  readonly #backlog: ChatBacklog<ReaderMessage>;
  /** Messages handed to a turn, by id. */
  readonly #held = new Map<string, Turn>();
  readonly #turns = new Set<Turn>();
  /** The turn queued but not started: it will take whatever waits when it starts. */
  #waiting: Turn | undefined;
  #timer: AbortController | undefined;
  #last: LastRead | undefined;
  /** When the last turn was queued, and whether the budget is being checked for the next. */
  #lastTurnAt = 0;
  #pacing = false;
  /** How long the chat's speech takes per character, learned from what played. */
  readonly #rate = new SpeechRate();

  constructor(options: GuildReaderOptions) {
    this.#options = options;
    this.#backlog = new ChatBacklog<ReaderMessage>({
      holdMs: options.holdMs,
      batchChars: options.batchChars,
    });
  }

  /** Messages waiting to be read. */
  get waiting(): number {
    return this.#backlog.size;
  }

  /** Messages dropped because they could not be heard within `max-age` of being posted. */
  get droppedStale(): number {
    return this.#droppedStale;
  }

  /** True when nothing waits, generates, plays or was counted: the state can go. */
  get idle(): boolean {
    const quiet = this.#backlog.size === 0 && this.#turns.size === 0 && !this.#timer;
    return quiet && this.#droppedStale === 0;
  }

  /** True while a chat turn is queued, generating or playing. */
  get busy(): boolean {
    return this.#turns.size > 0;
  }

  /** Adds a received message and queues a turn when one is due. */
  add(message: ReaderMessage): void {
    this.#backlog.add(message);
    this.#schedule();
  }

  /** Whether the message waits, or is in a turn not yet played out: only such a message can change. */
  holds(messageId: string): boolean {
    const turn = this.#held.get(messageId);
    return this.#backlog.has(messageId) || (turn !== undefined && turn.state !== 'done');
  }

  /** An edited message: read in its latest form unless it is being spoken already. */
  edit(messageId: string, spoken: SpokenMessage): void {
    if (spoken.text === '') {
      this.remove(messageId);
      return;
    }
    if (this.#backlog.edit(messageId, spoken)) return;
    const turn = this.#held.get(messageId);
    if (turn === undefined || turn.state === 'playing' || turn.state === 'done') return;
    // Discord also sends updates that leave the text as it was (a link preview arriving).
    const same = (m: ReaderMessage) => m.text === spoken.text && m.kind === spoken.kind;
    if (turn.batch.some((m) => m.id === messageId && same(m))) return;
    turn.batch = turn.batch.map((m) => (m.id === messageId ? { ...m, ...spoken } : m));
    this.#changed(turn);
  }

  /** A deleted message: never spoken; if it is playing, its turn is skipped. */
  remove(messageId: string): void {
    if (this.#backlog.delete(messageId)) return;
    const turn = this.#held.get(messageId);
    if (turn === undefined || turn.state === 'done') return;
    if (turn.state === 'playing') {
      this.#options.speaking.skip(this.#options.guildId);
      return;
    }
    this.#held.delete(messageId);
    turn.batch = turn.batch.filter((m) => m.id !== messageId);
    this.#changed(turn);
  }

  /** Drops every waiting message and the timer; how many messages there were. */
  clear(): number {
    this.#timer?.abort();
    this.#timer = undefined;
    return this.#backlog.clear();
  }

  // A message of a turn that has not played changed: make its audio again from what is left.
  #changed(turn: Turn): void {
    turn.dirty = true;
    turn.attempt?.abort(new Error('a message of the batch changed'));
  }

  // Queues a chat turn when messages are ready, none waits already, and the key's budget
  // spread over its window allows one now (see `nextTurnAt`).
  #schedule(): void {
    if (this.#waiting !== undefined || this.#pacing) return;
    const readyAt = this.#backlog.readyAt();
    const oldest = this.#backlog.oldest();
    if (readyAt === undefined || oldest === undefined) return;
    const { clock, logger } = this.#options;
    if (readyAt > clock.now()) {
      this.#wake(readyAt - clock.now());
      return;
    }
    this.#pacing = true;
    oldest.voice.client
      .usage('generate')
      .then(
        (usages) => nextTurnAt(usages, this.#lastTurnAt, clock.now()),
        (error: unknown) => {
          logger.warn({ err: error }, 'could not read the generation budget; not pacing');
          return 0;
        },
      )
      .then((at) => {
        this.#pacing = false;
        const now = clock.now();
        if (at > now) this.#wake(at - now);
        else if (this.#waiting === undefined && this.#backlog.size > 0) this.#queueTurn();
      });
  }

  #queueTurn(): void {
    this.#lastTurnAt = this.#options.clock.now();
    const turn: Turn = {
      batch: [],
      state: 'waiting',
      attempt: undefined,
      dirty: false,
      voice: undefined,
      cost: 0,
      playingSince: undefined,
    };
    this.#waiting = turn;
    const queued = this.#options.speaking.queue({
      guildId: this.#options.guildId,
      requesterId: CHAT_REQUESTER,
      requesterName: 'chat',
      text: '(chat messages)',
      source: {
        generate: (signal) => {
          if (this.#waiting === turn) this.#waiting = undefined;
          turn.state = 'generating';
          this.#schedule();
          return this.#produce(turn, signal);
        },
        open: async (audioUrl, signal) => {
          const url = turn.dirty ? await this.#produce(turn, signal) : audioUrl;
          if (turn.voice === undefined) throw new NothingToRead('the turn has no audio');
          return turn.voice.open(url, signal);
        },
      },
      onUpdate: (update) => this.#onUpdate(turn, update),
    });
    if (!queued.ok) {
      this.#waiting = undefined;
      this.#wake(this.#options.retryMs);
      return;
    }
    this.#turns.add(turn);
  }

  #wake(ms: number): void {
    if (this.#timer !== undefined) return;
    const timer = new AbortController();
    this.#timer = timer;
    this.#options.clock.sleep(ms, timer.signal).then(
      () => {
        if (this.#timer !== timer) return;
        this.#timer = undefined;
        this.#schedule();
      },
      (error: unknown) => {
        if (!timer.signal.aborted) this.#options.logger.warn({ err: error }, 'reader timer failed');
      },
    );
  }

  // Takes a fresh batch (putting back what the turn held) and generates it; again when a
  // message of the batch is deleted or edited before the audio is made.
  async #produce(turn: Turn, signal: AbortSignal): Promise<string> {
    for (;;) {
      signal.throwIfAborted();
      this.#refill(turn);
      const first = turn.batch[0];
      if (first === undefined) throw new NothingToRead('every message was deleted or too old');
      const { text, last } = composeBatch(turn.batch, {
        saidPrefix: this.settings?.saidPrefix ?? true,
        minLength: this.#options.minTextLength,
        last: this.#last,
        phrases: this.phrases,
      });
      this.#last = last;
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

  #refill(turn: Turn): void {
    for (const message of turn.batch) this.#held.delete(message.id);
    this.#backlog.requeue(turn.batch);
    const now = this.#options.clock.now();
    const maxAgeMs = this.settings?.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
    const forecast = {
      aheadMs: this.#aheadMs(turn, now),
      msPerChar: this.#rate.msPerChar,
      heardWithinMs: maxAgeMs * FORECAST_SHARE,
    };
    const taken = this.#backlog.take(now, maxAgeMs, forecast);
    if (taken.stale.length > 0) {
      this.#droppedStale += taken.stale.length;
      this.#backlog.forget(taken.stale);
      this.#options.logger.info(
        { guildId: this.#options.guildId, dropped: taken.stale.length, total: this.#droppedStale },
        'dropped chat messages that could not be heard within max-age',
      );
    }
    turn.batch = taken.batch;
    turn.cost = taken.batch.reduce((sum, message) => sum + batchCost(message), 0);
    for (const message of turn.batch) this.#held.set(message.id, turn);
  }

  // Speech of the chat's other turns still to play: the rest of the playing one, and the ones
  // made or being made. Items of `/say` members in between are not counted.
  #aheadMs(except: Turn, now: number): number {
    let ahead = 0;
    for (const turn of this.#turns) {
      if (turn === except || turn.state === 'waiting' || turn.state === 'done') continue;
      const speech = turn.cost * this.#rate.msPerChar;
      ahead += Math.max(
        0,
        speech - (turn.playingSince === undefined ? 0 : now - turn.playingSince),
      );
    }
    return ahead;
  }

  #onUpdate(turn: Turn, update: SpeakUpdate): void {
    switch (update.state) {
      case 'playing':
        turn.state = 'playing';
        turn.playingSince = this.#options.clock.now();
        // A playing item no longer counts against the chat's places in the queue.
        this.#schedule();
        return;
      case 'failed':
        if (!(update.error instanceof NothingToRead)) {
          const { guildId } = this.#options;
          this.#options.logger.warn({ err: update.error, guildId }, 'reading chat failed');
        }
        this.#done(turn);
        return;
      case 'played':
        this.#rate.observe(turn.cost, update.durationMs);
        this.#done(turn);
        return;
      case 'skipped':
        this.#done(turn);
        return;
      case 'cancelled':
        // `/stop` or leaving voice: the backlog goes with the queue.
        this.clear();
        this.#done(turn);
        this.#options.onCleared();
        return;
      default:
        return;
    }
  }

  #done(turn: Turn): void {
    turn.state = 'done';
    turn.attempt?.abort(new Error('the turn ended'));
    this.#turns.delete(turn);
    if (this.#waiting === turn) this.#waiting = undefined;
    for (const message of turn.batch) this.#held.delete(message.id);
    this.#backlog.forget(turn.batch);
    this.#schedule();
  }
}
