/**
 * One guild's speech queue: play order, the lazy generation window and item states.
 * Pure: no timers, no I/O; the caller does the generating and playing and reports back.
 */
import { RoundRobin } from './fairness.ts';
import { canTransition, type ItemEvent, type ItemState, isTerminal, transition } from './state.ts';
import type {
  AffectedItem,
  EnqueueResult,
  QueueItem,
  QueuePosition,
  SpeechQueueOptions,
  UpdateResult,
} from './types.ts';

/** Pending items a queue holds when `maxLength` is not given. */
export const DEFAULT_MAX_LENGTH = 25;
/** Positions that may generate ahead of playback when `lookahead` is not given. */
export const DEFAULT_LOOKAHEAD = 2;

interface Entry<T> {
  readonly id: string;
  readonly requesterId: string;
  readonly payload: T;
  readonly enqueuedAt: number;
  state: ItemState;
  updatedAt: number;
  failureReason?: string;
}

const snapshot = <T>(entry: Entry<T>): QueueItem<T> => Object.freeze({ ...entry });

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) {
    throw new RangeError(`SpeechQueue: ${name} must be a positive integer, got ${value}`);
  }
  return value;
}

/**
 * The speech queue of one guild. Play order: items whose place is fixed, then the
 * waiting items in round-robin order by requester (see `RoundRobin`). A place becomes
 * fixed when generation starts for the item or for an item behind it, so audio already
 * paid for is never pushed back by later requests. Only the first `lookahead` positions
 * generate, so items skipped, removed or cleared while waiting never cost API quota.
 */
export class SpeechQueue<T> {
  readonly maxLength: number;
  readonly maxPerRequester: number | undefined;
  readonly lookahead: number;
  readonly #options: SpeechQueueOptions<T>;
  readonly #entries = new Map<string, Entry<T>>(); // every non-terminal item
  readonly #waiting = new RoundRobin<Entry<T>>(); // places not fixed yet
  #fixed: Entry<T>[] = []; // queued, generating or ready; in play order, ahead of #waiting
  #playing: Entry<T> | undefined;
  #lastId = 0;

  constructor(options: SpeechQueueOptions<T>) {
    this.#options = options;
    this.maxLength = positiveInteger('maxLength', options.maxLength ?? DEFAULT_MAX_LENGTH);
    this.maxPerRequester =
      options.maxPerRequester === undefined
        ? undefined
        : positiveInteger('maxPerRequester', options.maxPerRequester);
    this.lookahead = positiveInteger('lookahead', options.lookahead ?? DEFAULT_LOOKAHEAD);
  }

  /** Number of pending items (queued, generating or ready); the playing one is not counted. */
  get length(): number {
    return this.#fixed.length + this.#waiting.size;
  }

  /** Adds a request at its fair place, unless the queue or the requester's share is full. */
  enqueue(request: { readonly requesterId: string; readonly payload: T }): EnqueueResult<T> {
    if (this.length >= this.maxLength)
      return { ok: false, reason: 'full', maxLength: this.maxLength };
    const max = this.maxPerRequester;
    if (max !== undefined && this.#pendingOf(request.requesterId) >= max) {
      return { ok: false, reason: 'requesterFull', maxPerRequester: max };
    }
    const at = this.#options.now();
    const id = this.#options.newId?.() ?? String(++this.#lastId);
    if (this.#entries.has(id)) throw new Error(`SpeechQueue: duplicate item id '${id}'`);
    const entry: Entry<T> = { id, ...request, enqueuedAt: at, state: 'queued', updatedAt: at };
    this.#entries.set(id, entry);
    this.#waiting.add(entry);
    const position = this.#ordered().indexOf(entry) + 1;
    return { ok: true, item: snapshot(entry), position };
  }

  /** An item still in the queue (pending or playing), by id. */
  get(id: string): QueueItem<T> | undefined {
    const entry = this.#entries.get(id);
    return entry && snapshot(entry);
  }

  /** The item playing now, if any. */
  current(): QueueItem<T> | undefined {
    return this.#playing && snapshot(this.#playing);
  }

  /** Pending items in play order with their 1-based positions. */
  order(): QueuePosition<T>[] {
    return this.#ordered().map((entry, index) => ({ item: snapshot(entry), position: index + 1 }));
  }

  /** 1-based position of a pending item; undefined when playing, ended or unknown. */
  positionOf(id: string): number | undefined {
    const index = this.#ordered().findIndex((entry) => entry.id === id);
    return index < 0 ? undefined : index + 1;
  }

  /** Items whose generation should start now: still-queued items in the first `lookahead` positions. */
  toGenerate(): QueueItem<T>[] {
    const window = this.#ordered().slice(0, this.lookahead);
    return window.filter((entry) => entry.state === 'queued').map(snapshot);
  }

  /** Reports that generation of an item from `toGenerate` has started; fixes its place. */
  markGenerating(id: string): UpdateResult<T> {
    return this.#report(id, 'startGeneration');
  }

  /** Reports that an item's audio is ready to play. */
  markReady(id: string): UpdateResult<T> {
    return this.#report(id, 'generated');
  }

  /** Reports that generating an item, or playing the current item, failed. */
  markFailed(id: string, reason: string): UpdateResult<T> {
    const entry = this.#entries.get(id);
    if (entry === undefined) return { ok: false, reason: 'unknown' };
    if (entry === this.#playing) {
      entry.failureReason = reason;
      this.#playing = undefined;
      return { ok: true, ...this.#apply(entry, 'playbackFailed') };
    }
    const result = this.#report(id, 'generationFailed', reason);
    if (result.ok) this.#fixed = this.#fixed.filter((other) => other !== entry);
    return result;
  }

  /** Starts the head of the order if nothing plays and it is ready; returns it, now playing. */
  next(): QueueItem<T> | undefined {
    const head = this.#fixed[0];
    if (this.#playing || head?.state !== 'ready') return undefined;
    this.#fixed.shift();
    this.#playing = head;
    return this.#apply(head, 'startPlaying').item;
  }

  /** Reports that the current item played to its end; refused for any other id (a late event). */
  finish(id: string): UpdateResult<T> {
    const entry = this.#playing;
    if (entry?.id !== id) {
      const other = this.#entries.get(id);
      return other
        ? { ok: false, reason: 'illegal', state: other.state }
        : { ok: false, reason: 'unknown' };
    }
    this.#playing = undefined;
    return { ok: true, ...this.#apply(entry, 'finished') };
  }

  /**
   * Skips the item that is up: the playing one or, while nothing plays, position 1 (usually
   * still generating: abort it). Never touches the rest. Returns it with its previous state.
   */
  skip(): AffectedItem<T>[] {
    const playing = this.#playing;
    if (playing) {
      this.#playing = undefined;
      return [this.#apply(playing, 'skip')];
    }
    const head = this.#ordered()[0];
    if (head === undefined || !this.#fix(head)) return [];
    this.#fixed.shift(); // skipping counts as its requester's turn
    return [this.#apply(head, 'skip')];
  }

  /** Cancels one item, pending or playing (the caller checks it is the requester's own). */
  remove(id: string): AffectedItem<T>[] {
    const entry = this.#entries.get(id);
    if (entry === undefined) return [];
    if (entry === this.#playing) this.#playing = undefined;
    else if (!this.#waiting.remove(entry)) {
      this.#fixed = this.#fixed.filter((other) => other !== entry);
    }
    return [this.#apply(entry, 'cancel')];
  }

  /** Cancels the playing item and every pending one; returns them, playing first, then in order. */
  clear(): AffectedItem<T>[] {
    const entries = [
      ...(this.#playing ? [this.#playing] : []),
      ...this.#fixed,
      ...this.#waiting.drain(),
    ];
    this.#playing = undefined;
    this.#fixed = [];
    return entries.map((entry) => this.#apply(entry, 'cancel'));
  }

  #ordered(): Entry<T>[] {
    return [...this.#fixed, ...this.#waiting.order()];
  }

  #pendingOf(requesterId: string): number {
    const fixed = this.#fixed.filter((entry) => entry.requesterId === requesterId).length;
    return fixed + this.#waiting.countOf(requesterId);
  }

  // Fixes the places of `entry` and of every waiting item ahead of it, if it is within
  // the first `lookahead` positions: they take their round-robin turns now.
  #fix(entry: Entry<T>): boolean {
    if (this.#fixed.includes(entry)) return true;
    const position = this.#ordered().indexOf(entry) + 1;
    if (position < 1 || position > this.lookahead) return false;
    while (this.#fixed.at(-1) !== entry) {
      const next = this.#waiting.take();
      if (next === undefined) return false;
      this.#fixed.push(next);
    }
    return true;
  }

  #report(id: string, event: ItemEvent, failureReason?: string): UpdateResult<T> {
    const entry = this.#entries.get(id);
    if (entry === undefined) return { ok: false, reason: 'unknown' };
    if (!canTransition(entry.state, event))
      return { ok: false, reason: 'illegal', state: entry.state };
    if (!this.#fix(entry)) return { ok: false, reason: 'notInWindow', state: entry.state };
    if (failureReason !== undefined) entry.failureReason = failureReason;
    return { ok: true, ...this.#apply(entry, event) };
  }

  #apply(entry: Entry<T>, event: ItemEvent): AffectedItem<T> {
    const previous = entry.state;
    entry.state = transition(previous, event);
    entry.updatedAt = this.#options.now();
    if (isTerminal(entry.state)) this.#entries.delete(entry.id);
    const item = snapshot(entry);
    this.#options.onTransition?.({ item, from: previous, event });
    return { item, previous };
  }
}
