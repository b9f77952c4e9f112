/**
 * One guild's speech queue: play order, the lazy generation window and item states.
 * Pure: no timers, no I/O; the caller does the generating and playing and reports back.
 */
import { FairOrder } from './fairness.ts';
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
 * The speech queue of one guild. Play order is round-robin by requester over every pending
 * item, whatever its generation state (see `FairOrder`): an item generated early waits for its
 * turn. Only the first `lookahead` positions of that order start generating, so items skipped,
 * removed or cleared while waiting never cost API quota; an item pushed out of the window by
 * a newcomer keeps generating (or its audio) and plays at its turn.
 */
export class SpeechQueue<T> {
  readonly maxLength: number;
  readonly maxPerRequester: number | undefined;
  readonly lookahead: number;
  readonly #options: SpeechQueueOptions<T>;
  readonly #entries = new Map<string, Entry<T>>(); // every non-terminal item
  readonly #pending = new FairOrder<Entry<T>>(); // queued, generating or ready
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
    return this.#pending.size;
  }

  /** Pending items (queued, generating or ready) of one requester; the playing one is not counted. */
  pendingOf(requesterId: string): number {
    return this.#pending.countOf(requesterId);
  }

  /** Adds a request at its fair place, unless the queue or the requester's share is full. */
  enqueue(request: { readonly requesterId: string; readonly payload: T }): EnqueueResult<T> {
    if (this.length >= this.maxLength)
      return { ok: false, reason: 'full', maxLength: this.maxLength };
    const max = this.maxPerRequester;
    if (max !== undefined && this.pendingOf(request.requesterId) >= max) {
      return { ok: false, reason: 'requesterFull', maxPerRequester: max };
    }
    const at = this.#options.now();
    const id = this.#options.newId?.() ?? String(++this.#lastId);
    if (this.#entries.has(id)) throw new Error(`SpeechQueue: duplicate item id '${id}'`);
    const entry: Entry<T> = { id, ...request, enqueuedAt: at, state: 'queued', updatedAt: at };
    if (this.#playing === undefined) this.#pending.forget(); // idle: a fresh rotation
    this.#entries.set(id, entry);
    this.#pending.add(entry);
    const position = this.#pending.order().indexOf(entry) + 1;
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
    return this.#pending
      .order()
      .map((entry, index) => ({ item: snapshot(entry), position: index + 1 }));
  }

  /** 1-based position of a pending item; undefined when playing, ended or unknown. */
  positionOf(id: string): number | undefined {
    const index = this.#pending.order().findIndex((entry) => entry.id === id);
    return index < 0 ? undefined : index + 1;
  }

  /** Items whose generation should start now: still-queued items in the first `lookahead` positions. */
  toGenerate(): QueueItem<T>[] {
    return this.#window()
      .filter((entry) => entry.state === 'queued')
      .map(snapshot);
  }

  /** Reports that generation of an item from `toGenerate` has started. */
  markGenerating(id: string): UpdateResult<T> {
    const entry = this.#entries.get(id);
    if (entry !== undefined && canTransition(entry.state, 'startGeneration')) {
      if (!this.#window().includes(entry))
        return { ok: false, reason: 'notInWindow', state: entry.state };
    }
    return this.#report(id, 'startGeneration');
  }

  /** Reports that an item's audio is ready; it plays at its turn. */
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
    if (result.ok) this.#pending.remove(entry);
    return result;
  }

  /** Starts the head of the order if nothing plays and it is ready; returns it, now playing. */
  next(): QueueItem<T> | undefined {
    const head = this.#pending.head();
    if (this.#playing || head?.state !== 'ready') return undefined;
    this.#pending.takeTurn();
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
    const head = this.#pending.takeTurn(); // skipping counts as its requester's turn
    return head === undefined ? [] : [this.#apply(head, 'skip')];
  }

  /** Cancels one item, pending or playing (the caller checks it is the requester's own). */
  remove(id: string): AffectedItem<T>[] {
    const entry = this.#entries.get(id);
    if (entry === undefined) return [];
    if (entry === this.#playing) this.#playing = undefined;
    else this.#pending.remove(entry);
    return [this.#apply(entry, 'cancel')];
  }

  /** Cancels the playing item and every pending one; returns them, playing first, then in order. */
  clear(): AffectedItem<T>[] {
    const entries = [...(this.#playing ? [this.#playing] : []), ...this.#pending.drain()];
    this.#playing = undefined;
    return entries.map((entry) => this.#apply(entry, 'cancel'));
  }

  /** The first `lookahead` pending items in play order: the ones that may generate. */
  #window(): Entry<T>[] {
    return this.#pending.order().slice(0, this.lookahead);
  }

  #report(id: string, event: ItemEvent, failureReason?: string): UpdateResult<T> {
    const entry = this.#entries.get(id);
    if (entry === undefined) return { ok: false, reason: 'unknown' };
    if (!canTransition(entry.state, event))
      return { ok: false, reason: 'illegal', state: entry.state };
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
