/**
 * What one server's chat turns read: a turn takes its batch from the backlog when its generation
 * starts (dropping what could not be heard within `max-age`), composes and generates it, and
 * makes it again when one of its messages is deleted, or edited within its one re-read, until it
 * plays.
 */
import type { Logger } from '../log/index.ts';
import { DEFAULT_MAX_AGE_MS, type ReaderSettings } from '../store/index.ts';
import type { Clock } from '../tts/index.ts';
import type { SpeakUpdate } from '../voice/index.ts';
import { batchCost, type ChatBacklog } from './backlog.ts';
import { API_SPEED, DEFAULT_MAX_SPEED, speedAt } from './chat-speed.ts';
import { ChatterShare } from './chatter-share.ts';
import { compactGlueChars, type LastRead } from './compose.ts';
import type { CrowdPhrases } from './crowd-phrases.ts';
import { FORECAST_SHARE, speechAheadMs, takeDelayMs } from './pacing.ts';
import type { ReaderPhrases } from './phrases.ts';
import { readOrder } from './read-order.ts';
import { ReadingSpeed } from './reading-speed.ts';
import { collapseRepeats } from './repeats.ts';
import { TakeOrder } from './take-order.ts';
import type { SpokenMessage } from './text.ts';
import { NothingToRead, type ReaderMessage, type Turn } from './turn.ts';
import { turnText } from './turn-text.ts';
import type { ChatSpeaking, TurnSource } from './types.ts';

/**
 * How many times what could be heard within the forecast window at the API's top speed may wait:
 * room for repeats that ride free in a chorus and for the learned rate moving before the take.
 */
export const WAITING_MARGIN = 2;

/** What {@link ReaderTurns} works with. */
export interface ReaderTurnsOptions {
  readonly guildId: string;
  readonly backlog: ChatBacklog<ReaderMessage>;
  readonly speaking: Pick<ChatSpeaking, 'skip'>;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly minTextLength: number;
  /** Choruses, chatter shares, priority and speed-ups; false reads as before them. */
  readonly busyChat: boolean;
  /** The server's reader settings and spoken phrases, as last seen with a message. */
  readonly current: () => {
    readonly settings?: ReaderSettings;
    readonly phrases: ReaderPhrases;
    readonly crowd: CrowdPhrases;
  };
  /** `turn` started generating, started playing or ended: the next may be queued. */
  readonly onProgress: (turn: Turn) => void;
  /** `/stop` or leaving voice cancelled `turn` (now ended): the chat waiting goes too. */
  readonly onCancelled: (turn: Turn) => void;
  /**
   * `turn` failed with `error`: true when the caller accounts for it (a refusal it counts, such
   * as a turn whose composed text spells a blocked word), false for a failure to log here.
   */
  readonly onFailed?: (turn: Turn, error: unknown) => boolean;
}

/** A server's chat turns, from queued to played. */
export class ReaderTurns {
  readonly #options: ReaderTurnsOptions;
  /** Messages handed to a turn, by id. */
  readonly #held = new Map<string, Turn>();
  readonly #turns = new Set<Turn>();
  #last: LastRead | undefined;
  #droppedStale = 0;
  #collapsed = 0;
  /** The speed the chat is read at now, and the speech rate its forecasts use. */
  readonly #speed: ReadingSpeed;
  /** What each chatter took of the last minute's reading. */
  readonly #share = new ChatterShare();
  /** A busy chat's turns take their batches one at a time, in queue order. */
  readonly #takes: TakeOrder;

  constructor(options: ReaderTurnsOptions) {
    this.#options = options;
    this.#takes = new TakeOrder(options.clock);
    this.#speed = new ReadingSpeed(options);
  }

  /** True while a chat turn is queued, generating or playing. */
  get busy(): boolean {
    return this.#turns.size > 0;
  }

  /** Messages dropped because they could not be heard within `max-age` of being posted. */
  get droppedStale(): number {
    return this.#droppedStale;
  }

  /** Messages heard as part of another's reading: repeats in a chorus, or one chatter's spam read once. */
  get collapsed(): number {
    return this.#collapsed;
  }

  /**
   * Drops, as stale, what waits past what could be heard within `max-age` even at the API's top
   * speed (see {@link WAITING_MARGIN}); called as messages arrive, so a chat that waits on a
   * stalled generation stays bounded. Counted like the messages a turn drops when it takes.
   */
  trim(): void {
    const { backlog, clock } = this.#options;
    const { settings, phrases } = this.#options.current();
    const maxAgeMs = settings?.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
    const heardWithinMs = maxAgeMs * FORECAST_SHARE;
    const maxChars = (WAITING_MARGIN * heardWithinMs) / this.#speed.msPerChar(API_SPEED.max);
    const glue = this.#speed.compact ? compactGlueChars(phrases) : undefined;
    const stale = backlog.trim(clock.now(), maxAgeMs, maxChars, glue);
    if (stale.length > 0) this.#droppedStale += stale.length;
  }

  /** A new turn for the speech queue: its source makes the audio when its generation starts. */
  open(): {
    readonly turn: Turn;
    readonly source: TurnSource;
    onUpdate(update: SpeakUpdate): void;
  } {
    const turn: Turn = {
      batch: [],
      state: 'waiting',
      attempt: undefined,
      dirty: false,
      voice: undefined,
      cost: 0,
      speed: undefined,
      factor: 1,
      compact: false,
      playingSince: undefined,
    };
    this.#turns.add(turn);
    return {
      turn,
      source: {
        generate: (signal) => {
          turn.state = 'generating';
          this.#options.onProgress(turn);
          return this.#produce(turn, signal, true, this.#options.busyChat);
        },
        // Made again when it plays, a turn is a file: ffmpeg was started by `rawFormatOf` then.
        // It plays now, so it takes its batch at once: waiting its place in `TakeOrder` would
        // wait on turns queued after it, which wait on its speech (silence meanwhile).
        open: async (audioUrl, signal) => {
          const url = turn.dirty ? await this.#produce(turn, signal, false, false) : audioUrl;
          if (turn.voice === undefined) throw new NothingToRead('the turn has no audio');
          return turn.voice.open(url, signal);
        },
        rawFormatOf: (audioUrl) => {
          if (audioUrl !== undefined)
            return turn.dirty ? undefined : turn.voice?.live?.rawFormatOf(audioUrl);
          const voice = turn.voice ?? this.#options.backlog.oldest()?.voice;
          return voice?.live?.rawFormatOf();
        },
      },
      onUpdate: (update) => this.#onUpdate(turn, update),
    };
  }

  /** The queue refused `turn`: it is forgotten. */
  discard(turn: Turn): void {
    this.#turns.delete(turn);
  }

  /** Whether a turn not yet played out holds the message. */
  holds(messageId: string): boolean {
    const turn = this.#held.get(messageId);
    return turn !== undefined && turn.state !== 'done';
  }

  /** The message a turn not yet played out holds, as that turn reads it. */
  held(messageId: string): ReaderMessage | undefined {
    const turn = this.#held.get(messageId);
    if (turn === undefined || turn.state === 'done') return undefined;
    return turn.batch.find((m) => m.id === messageId);
  }

  /**
   * An edit of a message a turn holds; false when no turn holds it. Before the turn plays, the
   * edit is read once more if the message is within `max-age`; later edits change nothing.
   */
  edit(messageId: string, spoken: SpokenMessage): boolean {
    const turn = this.#held.get(messageId);
    if (turn === undefined) return false;
    const message = turn.batch.find((m) => m.id === messageId);
    if (turn.state === 'playing' || turn.state === 'done' || message === undefined) return true;
    // Discord also sends updates that leave the text as it was (a link preview arriving).
    if (message.text === spoken.text && message.kind === spoken.kind) return true;
    const maxAgeMs = this.#options.current().settings?.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
    if (message.reread || this.#options.clock.now() - message.at > maxAgeMs) return true;
    turn.batch = turn.batch.map((m) =>
      m.id === messageId ? { ...m, ...spoken, reread: true } : m,
    );
    this.#changed(turn);
    return true;
  }

  /** A deleted message a turn holds: never spoken (its turn skipped if playing); false when none holds it. */
  remove(messageId: string): boolean {
    const turn = this.#held.get(messageId);
    if (turn === undefined) return false;
    if (turn.state === 'done') return true;
    if (turn.state === 'playing') {
      this.#options.speaking.skip(this.#options.guildId);
      return true;
    }
    this.#held.delete(messageId);
    this.#options.backlog.forget([{ id: messageId }]);
    turn.batch = turn.batch.filter((m) => m.id !== messageId);
    this.#changed(turn);
    return true;
  }

  // A message of a turn that has not played changed: make its audio again from what is left.
  #changed(turn: Turn): void {
    turn.dirty = true;
    turn.attempt?.abort(new Error('a message of the batch changed'));
  }

  // Takes a fresh batch (putting back what the turn held), `inOrder` after the turns queued
  // before it, and generates it, `live` where the voice streams; again when a message of the
  // batch is deleted or edited before the audio is made.
  async #produce(
    turn: Turn,
    signal: AbortSignal,
    live: boolean,
    inOrder: boolean,
  ): Promise<string> {
    let taken = inOrder && (await this.#takeInOrder(turn, signal));
    for (;;) {
      signal.throwIfAborted();
      if (!taken) this.#refill(turn);
      taken = false;
      const first = turn.batch[0];
      if (first === undefined) throw new NothingToRead('every message was deleted or too old');
      const { text, last, alone } = turnText(
        turn.batch,
        first.voice.request.language,
        this.#options.current(),
        {
          busyChat: this.#options.busyChat,
          minTextLength: this.#options.minTextLength,
          compact: turn.compact,
          last: this.#last,
        },
      );
      this.#last = last;
      const attempt = new AbortController();
      turn.attempt = attempt;
      turn.dirty = false;
      turn.voice = first.voice;
      // The speed-up applies to the batch's own voice, where its model takes speed: the
      // voice of the message it was decided on may be another (dropped stale, or held).
      const base = first.voice.request.speed ?? 1;
      turn.speed = first.voice.speeds === false ? base : speedAt(base, turn.factor);
      try {
        const options = {
          authors: turn.batch.map((message) => message.authorId),
          // Each line as it would be said in a generation of its own: what merging saved.
          ...(alone !== undefined ? { alone } : {}),
          signal: AbortSignal.any([signal, attempt.signal]),
          // The speed the rate model is told of when the turn has played, streamed or not.
          ...(turn.speed === base ? {} : { speed: turn.speed }),
        };
        const { live: streamed } = first.voice;
        const audioUrl = await (live && streamed !== undefined
          ? streamed.generate(text, options)
          : first.voice.generate(text, options));
        // `attempt` stays: aborting it lets a live stream go if the batch changes before it plays.
        if (!turn.dirty) {
          turn.state = 'ready';
          return audioUrl;
        }
      } catch (error) {
        if (signal.aborted || !attempt.signal.aborted) throw error;
      }
      turn.state = 'generating';
    }
  }

  // A busy chat's turn takes its batch after the turns queued before it, once the speech ahead
  // leaves enough of the forecast window (see `TakeOrder`).
  #takeInOrder(turn: Turn, signal: AbortSignal): Promise<true> {
    const { clock } = this.#options;
    const maxAgeMs = this.#options.current().settings?.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
    const delayMs = () => takeDelayMs(this.#aheadMs(turn, clock.now()), maxAgeMs * FORECAST_SHARE);
    return this.#takes.take(signal, delayMs, () => {
      this.#refill(turn);
      return true as const;
    });
  }

  #refill(turn: Turn): void {
    const { backlog, clock, logger, guildId } = this.#options;
    for (const message of turn.batch) this.#held.delete(message.id);
    backlog.requeue(turn.batch);
    const now = clock.now();
    const settings = this.#options.current().settings;
    const maxAgeMs = settings?.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
    const aheadMs = this.#aheadMs(turn, now);
    // Faster only where the API applies speed to the voice's model (v3: Base only).
    const speeds = this.#options.busyChat && backlog.oldest()?.voice.speeds !== false;
    const maxSpeed = speeds ? (settings?.maxSpeed ?? DEFAULT_MAX_SPEED) : 1;
    const glue = compactGlueChars(this.#options.current().phrases);
    if (turn.speed === undefined) {
      const quietMs = this.#speed.quietMs(aheadMs, now);
      turn.speed = this.#speed.speedOf(aheadMs, maxAgeMs, maxSpeed, glue, quietMs);
      turn.factor = this.#speed.factor;
      turn.compact = this.#speed.compact;
    }
    const cost = (message: ReaderMessage) => batchCost(message, turn.compact ? glue : undefined);
    const forecast = {
      aheadMs,
      msPerChar: this.#speed.msPerChar(turn.speed),
      heardWithinMs: maxAgeMs * FORECAST_SHARE,
    };
    const plan = readOrder(this.#options.busyChat, now, this.#share, cost);
    const taken = backlog.take(now, maxAgeMs, forecast, plan);
    if (taken.stale.length > 0) {
      this.#droppedStale += taken.stale.length;
      backlog.forget(taken.stale);
      logger.info(
        { guildId, dropped: taken.stale.length, total: this.#droppedStale },
        'dropped chat messages that could not be heard within max-age',
      );
    }
    turn.batch = taken.batch;
    // A chorus is read once: it costs, and counts in its first chatter's share, once.
    const spoken = this.#options.busyChat
      ? collapseRepeats(taken.batch).flatMap((group) => group.messages.slice(0, 1))
      : taken.batch;
    if (this.#options.busyChat) this.#share.record(now, spoken);
    turn.cost = spoken.reduce((sum, message) => sum + cost(message), 0);
    for (const message of turn.batch) this.#held.set(message.id, turn);
  }

  #aheadMs(turn: Turn, now: number): number {
    return speechAheadMs(this.#turns, turn, now, (speed) => this.#speed.msPerChar(speed));
  }

  #onUpdate(turn: Turn, update: SpeakUpdate): void {
    switch (update.state) {
      case 'playing':
        turn.state = 'playing';
        turn.playingSince = this.#options.clock.now();
        this.#speed.playing();
        if (this.#options.busyChat)
          this.#collapsed += turn.batch.length - collapseRepeats(turn.batch).length;
        // A playing item no longer counts against the chat's places in the queue.
        this.#options.onProgress(turn);
        return;
      case 'failed':
        if (
          !(update.error instanceof NothingToRead) &&
          !this.#options.onFailed?.(turn, update.error)
        ) {
          const { guildId } = this.#options;
          this.#options.logger.warn({ err: update.error, guildId }, 'reading chat failed');
        }
        this.#done(turn);
        return;
      case 'played':
        this.#speed.played(turn.cost, update.durationMs, turn.speed ?? 1);
        this.#done(turn);
        return;
      case 'skipped':
        this.#done(turn);
        return;
      case 'cancelled':
        // `/stop` or leaving voice: the backlog goes with the queue, and nothing is queued next.
        this.#done(turn, false);
        this.#options.onCancelled(turn);
        return;
      default:
        return;
    }
  }

  #done(turn: Turn, next = true): void {
    turn.state = 'done';
    turn.attempt?.abort(new Error('the turn ended'));
    this.#turns.delete(turn);
    if (![...this.#turns].some((other) => other.state === 'playing'))
      this.#speed.quiet(this.#options.clock.now());
    for (const message of turn.batch) this.#held.delete(message.id);
    this.#options.backlog.forget(turn.batch);
    this.#takes.wake();
    if (next) this.#options.onProgress(turn);
  }
}
