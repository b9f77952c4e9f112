/**
 * One server's chat messages waiting to be read, and the choice of the next batch: fresh,
 * past their short hold, one voice, in order per member and round-robin between members
 * when the batch cannot take everything. Pure: time is passed in.
 */
import {
  type Entry,
  fillBatch,
  type SpeechForecast,
  type TakePlan,
  timeWaiting,
} from './batch-choice.ts';
import { type ChatLine, SAID_GLUE_CHARS } from './compose.ts';

export { SAID_GLUE_CHARS };

/** A chat message waiting to be read. */
export interface PendingMessage extends ChatLine {
  readonly id: string;
  /** Messages merge only with messages spoken in the same voice (voice, model, speed). */
  readonly voiceKey: string;
  /**
   * Paid for (a Twitch redemption or cheer): read ahead of plain chat (see `TakePlan.order`), but
   * for one chat batch after {@link PAID_RUN} paid ones while chat waits, and never dropped as
   * stale, however long it waits. Past {@link PAID_WAITING_MAX} waiting it waits as plain chat.
   */
  readonly paid?: boolean;
  /** Its own hold as the oldest waiting (see `mergeHoldMs`); the backlog's `holdMs` when absent. */
  readonly holdMs?: number;
}

/**
 * Most paid messages waiting in one server (about half an hour of speech at a few short cheers a
 * batch): one more waits as plain chat (it can go stale) and is counted (`paidOverCap`, shown in
 * `/queue`), so a hype train of hundreds of cheers neither grows without bound nor is read an
 * hour late.
 */
export const PAID_WAITING_MAX = 250;

/**
 * Batches led by paid messages in a row while plain chat waits; the next one then leads with
 * the chat, so a stream of paid messages never silences the chat for good.
 */
export const PAID_RUN = 3;

/** Settings of a {@link ChatBacklog}. */
export interface BacklogOptions {
  /**
   * The oldest message waits this long (or its own `holdMs`) before a batch starts, so a quick
   * delete is free and neighbours merge; younger messages then ride along in the same batch.
   */
  readonly holdMs: number;
  /** Most characters one batch (one generation) may hold, prefixes included. */
  readonly batchChars: number;
}

/** What `take` hands out: the batch to read now, and the messages too old to read. */
export interface Taken<M extends PendingMessage = PendingMessage> {
  readonly batch: M[];
  readonly stale: M[];
}

/**
 * Characters a message adds to a batch: its text, the author's name, and `glue` for the words
 * around them (fewer for the compact "Bobby, …" of a busy chat, see `compactGlueChars`).
 */
export function batchCost(
  message: Pick<ChatLine, 'text' | 'authorName'>,
  glue = SAID_GLUE_CHARS,
): number {
  return message.text.length + Math.min(40, message.authorName.length) + glue;
}

/** A server's unread chat messages, oldest first, indexed by id. */
export class ChatBacklog<M extends PendingMessage = PendingMessage> {
  readonly #options: BacklogOptions;
  /** The unread messages by id, in sequence order (a Map keeps insertion order). */
  #entries = new Map<string, Entry<M>>();
  #seq = 0;
  /** Characters of every unread message without the glue (text and capped name). */
  #bareChars = 0;
  /** Sequence numbers of messages handed out, so requeued ones find their place again. */
  readonly #taken = new Map<string, number>();
  /** Paid messages waiting, and their characters without the glue (as `#bareChars`). */
  #paid = 0;
  #paidBareChars = 0;
  /** Paid messages added past {@link PAID_WAITING_MAX}, waiting as plain chat: counted for `/queue`. */
  #paidOverCap = 0;
  /** Batches led by a paid message in a row while chat waited (see {@link PAID_RUN}). */
  #paidRun = 0;

  constructor(options: BacklogOptions) {
    this.#options = options;
  }

  /** Number of unread messages. */
  get size(): number {
    return this.#entries.size;
  }

  /** Characters of every unread message, as a batch counts them (with `glue`, see {@link batchCost}). */
  chars(glue = SAID_GLUE_CHARS): number {
    return this.#bareChars + this.#entries.size * glue;
  }

  /** Characters of the unread plain chat (paid messages left out), as {@link chars} counts them. */
  #chatChars(glue: number): number {
    return this.#bareChars - this.#paidBareChars + (this.#entries.size - this.#paid) * glue;
  }

  /**
   * Adds a newly received message behind the others. A paid one past {@link PAID_WAITING_MAX}
   * waiting is added as plain chat and counted in {@link paidOverCap}.
   */
  add(message: M): void {
    let added = message;
    if (message.paid === true && this.#paid >= PAID_WAITING_MAX) {
      added = { ...message, paid: false };
      this.#paidOverCap += 1;
    }
    this.#put({ message: added, seq: this.#seq++ });
  }

  /** Unread messages that were paid for (see {@link PendingMessage.paid}). */
  get paid(): number {
    return this.#paid;
  }

  /** Paid messages that came while {@link PAID_WAITING_MAX} waited, and waited as plain chat. */
  get paidOverCap(): number {
    return this.#paidOverCap;
  }

  /** Whether the message waits here unread. */
  has(id: string): boolean {
    return this.#entries.has(id);
  }

  /** The unread message `id`, if it waits here. */
  get(id: string): M | undefined {
    return this.#entries.get(id)?.message;
  }

  /**
   * Replaces the text of an unread message (an edit), and its voice when the edit is read in
   * another (its language changed); false when it is not waiting here.
   */
  edit(id: string, change: Pick<ChatLine, 'text' | 'kind'> & Partial<M>): boolean {
    const entry = this.#entries.get(id);
    if (entry === undefined) return false;
    this.#count(entry, -1);
    entry.message = { ...entry.message, ...change };
    this.#count(entry);
    return true;
  }

  /** Forgets an unread message (deleted); false when it is not waiting here. */
  delete(id: string): boolean {
    const entry = this.#entries.get(id);
    if (entry === undefined) return false;
    this.#drop(entry);
    return true;
  }

  /** The oldest unread message. */
  oldest(): M | undefined {
    return this.#first()?.message;
  }

  /** When the oldest unread message ends its hold; undefined when none waits. */
  readyAt(): number | undefined {
    const first = this.#first();
    return first === undefined ? undefined : first.message.at + this.#holdOf(first.message);
  }

  /**
   * Drops, oldest first, what plain chat could not be heard anyway and returns it (stale):
   * messages older than `maxAgeMs`, then the oldest while more than `maxChars` of chat wait (at
   * `glue`; paid messages neither count nor go). `take` would drop them too; trimming on arrival
   * keeps a chat that waits on a stalled generation from piling up past what could ever be read.
   * Amortized constant per message added (plus the paid ones waiting, at most {@link PAID_WAITING_MAX}).
   */
  trim(now: number, maxAgeMs: number, maxChars: number, glue = SAID_GLUE_CHARS): M[] {
    const stale: M[] = [];
    for (const entry of this.#entries.values()) {
      if (entry.message.paid === true) continue;
      const old = now - entry.message.at > maxAgeMs;
      const chat = this.#entries.size - this.#paid;
      if (!old && !(this.#chatChars(glue) > maxChars && chat > 1)) break;
      this.#drop(entry);
      stale.push(entry.message);
    }
    return stale;
  }

  /**
   * Removes and returns the next batch, and every message too old to read (stale): older
   * than `maxAgeMs`, or, with a forecast, one that could not be heard in time. The waiting
   * messages are then timed as if read in arrival order after the speech ahead; one whose
   * speech would end later than `heardWithinMs` after its posting is dropped now, so the
   * time goes to messages that can still be heard in time (a chat faster than speech is read
   * with bounded lag, and drains within that bound once it quiets). No batch starts before
   * the oldest message has waited its hold; the batch takes only messages in that message's
   * voice; members take turns (each their oldest first) until the batch is full, then it is
   * put in arrival order. A member whose next message does not fit is done for this batch, so
   * their messages are never reordered. `plan` can change the reading order and hold some
   * back (fairness, priority), and let repeats ride with the first message saying the same.
   * After {@link PAID_RUN} batches led by paid messages while chat waited, the chat leads the
   * next; chat is timed behind only the paid speech still due before its batch.
   */
  take(now: number, maxAgeMs: number, forecast?: SpeechForecast, plan: TakePlan<M> = {}): Taken<M> {
    const entries = [...this.#entries.values()];
    const byMessage = new Map(entries.map((e) => [e.message, e]));
    const fair = plan.order?.(entries.map((e) => e.message));
    const ordered =
      fair === undefined ? entries : fair.ordered.flatMap((m) => byMessage.get(m) ?? []);
    const chatTurn = this.#paidRun >= PAID_RUN;
    const isPaid = (entry: Entry<M>) => entry.message.paid === true;
    const timed = chatTurn
      ? [...ordered.filter((e) => !isPaid(e)), ...ordered.filter(isPaid)]
      : ordered;
    const paidAllowance = chatTurn ? 0 : (PAID_RUN - this.#paidRun) * this.#options.batchChars;
    const held = new Set(fair?.held ?? []);
    const cost = plan.cost ?? ((message: M) => batchCost(message));
    const { stale, riders, riding } = timeWaiting(timed, {
      now,
      maxAgeMs,
      forecast,
      paidAllowance,
      repeatKey: plan.repeatKey,
      cost,
    });
    for (const entry of stale) this.#drop(entry);
    const staleMessages = [...stale].sort((a, b) => a.seq - b.seq).map((e) => e.message);
    const head = this.#first();
    if (head === undefined || now - head.message.at < this.#holdOf(head.message))
      return { batch: [], stale: staleMessages };
    const candidates = timed.filter((e) => !stale.has(e) && !riding.has(e) && !held.has(e.message));
    const first = candidates[0];
    if (first === undefined) return { batch: [], stale: staleMessages };
    const chosen = fillBatch(candidates, riders, cost, this.#options.batchChars);
    // Chat dropped as stale here waited too: it went because the paid run was ahead of it.
    const chatWaited = entries.some((entry) => !isPaid(entry));
    this.#paidRun = isPaid(first) && chatWaited ? this.#paidRun + 1 : 0;
    for (const entry of chosen) this.#drop(entry);
    const batch = [...chosen].sort((a, b) => a.seq - b.seq);
    for (const entry of batch) this.#taken.set(entry.message.id, entry.seq);
    return { batch: batch.map((e) => e.message), stale: staleMessages };
  }

  /** Puts messages of a batch that will not be read after all back in their places. */
  requeue(messages: readonly M[]): void {
    if (messages.length === 0) return;
    const entries = [...this.#entries.values()];
    for (const message of messages)
      entries.push({ message, seq: this.#taken.get(message.id) ?? this.#seq++ });
    entries.sort((a, b) => a.seq - b.seq);
    this.#empty();
    for (const entry of entries) this.#put(entry);
    this.forget(messages);
  }

  /** Forgets the places of handed-out messages that were read, skipped or dropped. */
  forget(messages: readonly Pick<PendingMessage, 'id'>[]): void {
    for (const message of messages) this.#taken.delete(message.id);
  }

  /** Drops every unread message; how many there were. */
  clear(): number {
    const count = this.#entries.size;
    this.#empty();
    this.#paidRun = 0;
    this.#taken.clear();
    return count;
  }

  #holdOf(message: M): number {
    return message.holdMs ?? this.#options.holdMs;
  }

  #first(): Entry<M> | undefined {
    for (const entry of this.#entries.values()) return entry;
    return undefined;
  }

  #put(entry: Entry<M>): void {
    const before = this.#entries.get(entry.message.id);
    if (before !== undefined) this.#drop(before);
    this.#entries.set(entry.message.id, entry);
    this.#count(entry);
  }

  #drop(entry: Entry<M>): void {
    if (this.#entries.get(entry.message.id) !== entry) return;
    this.#entries.delete(entry.message.id);
    this.#count(entry, -1);
  }

  // No entry waits, and none is counted.
  #empty(): void {
    this.#entries = new Map();
    this.#bareChars = 0;
    this.#paid = 0;
    this.#paidBareChars = 0;
  }

  // Counts the entry's characters (and, paid, the entry) in (`sign` 1) or out (-1).
  #count(entry: Entry<M>, sign: 1 | -1 = 1): void {
    const chars = sign * batchCost(entry.message, 0);
    this.#bareChars += chars;
    if (entry.message.paid !== true) return;
    this.#paid += sign;
    this.#paidBareChars += chars;
  }
}
