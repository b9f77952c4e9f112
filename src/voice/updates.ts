/**
 * Delivers each queued item's progress to its `/say` reply: positions while pending (only
 * when they change), `playing`, then exactly one terminal update.
 */
import type { Logger } from '../log/index.ts';
import type { QueuePosition } from '../queue/index.ts';
import type { SpeakUpdate } from './types.ts';

type Terminal = Extract<SpeakUpdate, { state: 'played' | 'failed' | 'skipped' | 'cancelled' }>;

interface Listener {
  readonly onUpdate: (update: SpeakUpdate) => void;
  last: string | undefined;
}

/** The `onUpdate` callbacks of one guild's live items. */
export class ItemUpdates {
  readonly #listeners = new Map<string, Listener>();
  readonly #logger: Pick<Logger, 'warn'>;

  constructor(logger: Pick<Logger, 'warn'>) {
    this.#logger = logger;
  }

  /** Starts following an item. */
  add(itemId: string, onUpdate: (update: SpeakUpdate) => void): void {
    this.#listeners.set(itemId, { onUpdate, last: undefined });
  }

  /** Sends `queued`/`generating`/`ready` with the current position to each item whose changed. */
  publish(order: readonly QueuePosition<unknown>[]): void {
    for (const { item, position } of order) {
      const { state } = item;
      if (state !== 'queued' && state !== 'generating' && state !== 'ready') continue;
      this.#send(item.id, { state, position });
    }
  }

  /** Tells an item it is playing now. */
  playing(itemId: string): void {
    this.#send(itemId, { state: 'playing' });
  }

  /** Sends an item's one terminal update and forgets it; later calls for it do nothing. */
  end(itemId: string, update: Terminal): void {
    const listener = this.#listeners.get(itemId);
    if (listener === undefined) return;
    this.#listeners.delete(itemId);
    this.#deliver(itemId, listener, update);
  }

  /** Ids of the items still followed (not ended yet). */
  pending(): string[] {
    return [...this.#listeners.keys()];
  }

  #send(itemId: string, update: SpeakUpdate): void {
    const listener = this.#listeners.get(itemId);
    const key = JSON.stringify(update);
    if (listener === undefined || listener.last === key) return;
    listener.last = key;
    this.#deliver(itemId, listener, update);
  }

  // A reply that cannot be edited must not stop the queue.
  #deliver(itemId: string, listener: Listener, update: SpeakUpdate): void {
    try {
      listener.onUpdate(update);
    } catch (error) {
      this.#logger.warn({ err: error, itemId, state: update.state }, 'onUpdate threw');
    }
  }
}
