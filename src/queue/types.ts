/** Shapes the speech queue hands out and accepts. */
import type { ItemEvent, ItemState } from './state.ts';

/** A read-only snapshot of one item; `payload` is whatever the caller attached. */
export interface QueueItem<T> {
  readonly id: string;
  readonly requesterId: string;
  readonly payload: T;
  readonly state: ItemState;
  /** `now()` when enqueued. */
  readonly enqueuedAt: number;
  /** `now()` at the last state change (enqueue counts). */
  readonly updatedAt: number;
  /** Set when the item ends in `failed`. */
  readonly failureReason?: string;
}

/** A pending item with its 1-based place in play order (1 = plays next). */
export interface QueuePosition<T> {
  readonly item: QueueItem<T>;
  readonly position: number;
}

/** An item a call changed, with the state it had before, so the caller can abort work. */
export interface AffectedItem<T> {
  readonly item: QueueItem<T>;
  readonly previous: ItemState;
}

/** Outcome of `enqueue`. Full means the pending items, not counting the playing one. */
export type EnqueueResult<T> =
  | { readonly ok: true; readonly item: QueueItem<T>; readonly position: number }
  | { readonly ok: false; readonly reason: 'full'; readonly maxLength: number }
  | { readonly ok: false; readonly reason: 'requesterFull'; readonly maxPerRequester: number };

/**
 * Outcome of reporting on one item. Not ok is normal after a race (the item was skipped,
 * removed or cleared while its generation ran): the caller drops the result.
 * `unknown`: not in the queue (never was, or already ended); `notInWindow`: not one of
 * the items that may generate now; `illegal`: the state machine forbids it in `state`.
 */
export type UpdateResult<T> =
  | ({ readonly ok: true } & AffectedItem<T>)
  | { readonly ok: false; readonly reason: 'unknown' }
  | { readonly ok: false; readonly reason: 'notInWindow' | 'illegal'; readonly state: ItemState };

/** One state change, as reported to `onTransition`. */
export interface QueueTransition<T> {
  readonly item: QueueItem<T>;
  readonly from: ItemState;
  readonly event: ItemEvent;
}

/** Settings of one guild's queue. Only `now` is required. */
export interface SpeechQueueOptions<T> {
  /** Clock for timestamps (milliseconds). */
  readonly now: () => number;
  /** Most pending items (queued, generating or ready), the playing one not counted. */
  readonly maxLength?: number;
  /** Most pending items of one requester. No limit when absent. */
  readonly maxPerRequester?: number;
  /** How many of the next positions may generate ahead of playback. At least 1. */
  readonly lookahead?: number;
  /** Item ids; defaults to a per-queue counter ("1", "2", ...). */
  readonly newId?: () => string;
  /** Called synchronously after every state change, e.g. for logs and metrics. */
  readonly onTransition?: (change: QueueTransition<T>) => void;
}
