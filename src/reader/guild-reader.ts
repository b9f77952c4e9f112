/**
 * One server's chat reading: its backlog, and when the next chat turn is queued. At most one
 * turn waits in the speech queue, and turns are spaced so the key's generation budget lasts
 * its window; what each turn reads is {@link ReaderTurns}'s job.
 */
import type { Logger } from '../log/index.ts';
import type { ReaderSettings } from '../store/index.ts';
import type { Clock } from '../tts/index.ts';
import { ChatBacklog } from './backlog.ts';
import { type CrowdPhrases, ENGLISH_CROWD_PHRASES } from './crowd-phrases.ts';
import { mergeHoldMs, nextTurnAt, PACE_GAPS } from './pacing.ts';
import { ENGLISH_PHRASES, type ReaderPhrases } from './phrases.ts';
import type { SpokenMessage } from './text.ts';
import type { ReaderMessage, Turn } from './turn.ts';
import { ReaderTurns } from './turns.ts';
import type { ChatSpeaking, ChatVoice } from './types.ts';

/** The requester id chat turns have in the speech queue: the chat takes turns with `/say` members. */
export const CHAT_REQUESTER = 'chat';

/** Where a message came from, so a source can withdraw what it sent (a Twitch timeout, a chat clear). */
export interface MessageOrigin {
  readonly messageId: string;
  readonly authorId: string;
  readonly channelId: string;
}

/**
 * Origins remembered past this many are pruned of messages no longer held; the next prune
 * waits until twice as many as were left, so pruning costs a constant per message.
 */
const ORIGINS_KEPT = 500;

/** Settings of a {@link GuildReader}. */
export interface GuildReaderOptions {
  readonly guildId: string;
  readonly speaking: ChatSpeaking;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly minTextLength: number;
  readonly holdMs: number;
  /** Hold every message, the quiet chat's too (see `ChatReaderOptions.holdQuietChat`). */
  readonly holdQuietChat?: boolean;
  readonly batchChars: number;
  readonly retryMs: number;
  /** Choruses, chatter shares, priority and speed-ups (see `ChatReaderOptions.busyChat`). */
  readonly busyChat: boolean;
  /** `/stop` or leaving voice cleared the server's chat. */
  readonly onCleared: () => void;
  /** A turn of `messages` messages failed with `error`: true when the caller counts it. */
  readonly onTurnFailed?: (messages: number, error: unknown) => boolean;
}

/** The chat of one server on its way to speech. */
export class GuildReader {
  /** The server's reader settings as last seen with a message. */
  settings: ReaderSettings | undefined;
  /** The server's spoken phrases (its language) as last seen with a message. */
  phrases: ReaderPhrases = ENGLISH_PHRASES;
  /** The server's busy-chat phrases ("7 people said"), as last seen with a message. */
  crowd: CrowdPhrases = ENGLISH_CROWD_PHRASES;
  /** Message events of the server, handled one at a time in arrival order. */
  chain: Promise<void> = Promise.resolve();
  readonly #options: GuildReaderOptions;
  readonly #backlog: ChatBacklog<ReaderMessage>;
  readonly #turns: ReaderTurns;
  /** The turn queued but not started: it will take whatever waits when it starts. */
  #waiting: Turn | undefined;
  #timer: AbortController | undefined;
  /** When the last turn was queued, and whether the budget is being checked for the next. */
  #lastTurnAt = 0;
  #pacing = false;
  /** Where each message handed to `add` came from, while it may still be held. */
  readonly #origins = new Map<string, MessageOrigin>();
  /** How many origins are remembered before the next prune. */
  #pruneAt = ORIGINS_KEPT;
  /** When the latest messages arrived, oldest first: how busy the chat is (see `mergeHoldMs`). */
  readonly #arrivals: number[] = [];

  constructor(options: GuildReaderOptions) {
    this.#options = options;
    this.#backlog = new ChatBacklog<ReaderMessage>({
      holdMs: options.holdMs,
      batchChars: options.batchChars,
    });
    this.#turns = new ReaderTurns({
      guildId: options.guildId,
      backlog: this.#backlog,
      speaking: options.speaking,
      clock: options.clock,
      logger: options.logger,
      minTextLength: options.minTextLength,
      busyChat: options.busyChat,
      current: () => ({
        phrases: this.phrases,
        crowd: this.crowd,
        ...(this.settings === undefined ? {} : { settings: this.settings }),
      }),
      onProgress: (turn) => {
        if (this.#waiting === turn) this.#waiting = undefined;
        this.#schedule();
      },
      onFailed: (turn, error) => this.#options.onTurnFailed?.(turn.batch.length, error) ?? false,
      onCancelled: (turn) => {
        if (this.#waiting === turn) this.#waiting = undefined;
        this.clear();
        this.#options.onCleared();
      },
    });
  }

  /** Messages waiting to be read. */
  get waiting(): number {
    return this.#backlog.size;
  }

  /** Paid messages (Twitch redemptions and cheers) among those waiting. */
  get waitingPaid(): number {
    return this.#backlog.paid;
  }

  /** Paid messages that came while the most waited, and waited as plain chat (see `PAID_WAITING_MAX`). */
  get paidOverCap(): number {
    return this.#backlog.paidOverCap;
  }

  /** Messages dropped because they could not be heard within `max-age` of being posted. */
  get droppedStale(): number {
    return this.#turns.droppedStale;
  }

  /** Messages heard as part of another's reading (a chorus, or spam read once). */
  get collapsed(): number {
    return this.#turns.collapsed;
  }

  /** True when nothing waits, generates, plays or was counted: the state can go. */
  get idle(): boolean {
    const quiet = this.#backlog.size === 0 && !this.#turns.busy && !this.#timer;
    const counted = this.#turns.droppedStale + this.#turns.collapsed + this.#backlog.paidOverCap;
    return quiet && counted === 0;
  }

  /** True while a chat turn is queued, generating or playing. */
  get busy(): boolean {
    return this.#turns.busy;
  }

  /**
   * Adds a received message and queues a turn when one is due: at once in a quiet chat, after
   * the merge hold in a busy one (see `mergeHoldMs`).
   */
  add(message: ReaderMessage, channelId?: string): void {
    if (channelId !== undefined) {
      if (this.#origins.size >= this.#pruneAt) this.#pruneOrigins();
      this.#origins.set(message.id, {
        messageId: message.id,
        authorId: message.authorId,
        channelId,
      });
    }
    this.#arrivals.push(message.at);
    if (this.#arrivals.length > PACE_GAPS + 1) this.#arrivals.shift();
    const { holdMs, holdQuietChat } = this.#options;
    const hold = holdQuietChat === true ? holdMs : mergeHoldMs(this.#arrivals, holdMs);
    this.#backlog.add({ ...message, holdMs: hold });
    this.#turns.trim();
    this.#schedule();
  }

  /**
   * Removes every held message whose origin matches, as if each were deleted (a chatter timed
   * out, a chat cleared); how many there were.
   */
  withdraw(matches: (origin: MessageOrigin) => boolean): number {
    this.#pruneOrigins();
    let count = 0;
    for (const [id, origin] of this.#origins) {
      if (!matches(origin)) continue;
      this.remove(id);
      this.#origins.delete(id);
      count += 1;
    }
    return count;
  }

  #pruneOrigins(): void {
    for (const id of this.#origins.keys()) if (!this.holds(id)) this.#origins.delete(id);
    this.#pruneAt = Math.max(ORIGINS_KEPT, 2 * this.#origins.size);
  }

  /** Whether the message waits, or is in a turn not yet played out: only such a message can change. */
  holds(messageId: string): boolean {
    return this.#backlog.has(messageId) || this.#turns.holds(messageId);
  }

  /**
   * A message held (see {@link holds}), and whether it still waits unread (its voice can change
   * with its text) or a turn took it (it is read in the turn's voice).
   */
  held(messageId: string): { message: ReaderMessage; waiting: boolean } | undefined {
    const waiting = this.#backlog.get(messageId);
    if (waiting !== undefined) return { message: waiting, waiting: true };
    const taken = this.#turns.held(messageId);
    return taken === undefined ? undefined : { message: taken, waiting: false };
  }

  /**
   * An edited message: a waiting one is read in its latest form (no extra generation), in
   * `voice` when given (the edit's language is another); one already taken for generation is
   * read once more at most, within `max-age`, unless it plays, in its turn's voice.
   */
  edit(messageId: string, spoken: SpokenMessage, voice?: ChatVoice): void {
    if (spoken.text === '') {
      this.remove(messageId);
      return;
    }
    const change = voice === undefined ? spoken : { ...spoken, voice, voiceKey: voice.key };
    if (this.#backlog.edit(messageId, change)) return;
    this.#turns.edit(messageId, spoken);
  }

  /** A deleted message: never spoken; if it is playing, its turn is skipped. */
  remove(messageId: string): void {
    if (this.#backlog.delete(messageId)) return;
    this.#turns.remove(messageId);
  }

  /** Drops every waiting message and the timer; how many messages there were. */
  clear(): number {
    this.#origins.clear();
    this.#timer?.abort();
    this.#timer = undefined;
    return this.#backlog.clear();
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
    oldest.voice
      .usage()
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
    const { turn, source, onUpdate } = this.#turns.open();
    this.#waiting = turn;
    const queued = this.#options.speaking.queue({
      guildId: this.#options.guildId,
      requesterId: CHAT_REQUESTER,
      requesterName: 'chat',
      text: '(chat messages)',
      source,
      onUpdate,
    });
    if (!queued.ok) {
      this.#turns.discard(turn);
      this.#waiting = undefined;
      this.#wake(this.#options.retryMs);
    }
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
}
