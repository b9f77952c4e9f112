/**
 * A few requests at once per server, the others waiting in line in fair order: members take
 * turns (the voice queue's `FairOrder`), so one member's ten files do not make everyone else
 * wait behind all ten.
 */
import { FairOrder } from '../queue/index.ts';

interface Waiter {
  readonly id: string;
  readonly requesterId: string;
  readonly admit: () => void;
  readonly onPlace: (place: number) => void;
}

interface Group {
  active: number;
  readonly waiting: FairOrder<Waiter>;
}

/** Counting slots per group (a server); waiters take turns by requester. */
export class Slots {
  readonly #max: number;
  readonly #groups = new Map<string, Group>();
  #lastId = 0;
  /** The place each waiter was last told. */
  readonly #places = new WeakMap<Waiter, number>();

  constructor(max: number) {
    if (!Number.isInteger(max) || max < 1)
      throw new RangeError(`Slots: max must be >= 1, got ${max}`);
    this.#max = max;
  }

  /**
   * Waits for a slot in `group` for `requesterId`; `onPlace` hears the 1-based place in line
   * whenever it changes (not called when a slot is free at once). Resolves with the slot's
   * release (idempotent). An abort while waiting leaves the line and rejects with the
   * signal's reason.
   */
  async acquire(
    group: string,
    requesterId: string,
    onPlace: (place: number) => void,
    signal?: AbortSignal,
  ): Promise<() => void> {
    signal?.throwIfAborted();
    let entry = this.#groups.get(group);
    if (entry === undefined) {
      entry = { active: 0, waiting: new FairOrder<Waiter>() };
      this.#groups.set(group, entry);
    }
    const state = entry;
    if (state.active < this.#max && state.waiting.size === 0) {
      state.active += 1;
      // Counted as the requester's turn, so their next waits behind others who had none.
      const self = { id: String(++this.#lastId), requesterId, admit: () => undefined, onPlace };
      state.waiting.add(self);
      state.waiting.takeTurn();
      return this.#releaser(group, state);
    }
    await new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        id: String(++this.#lastId),
        requesterId,
        admit: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        onPlace,
      };
      const onAbort = (): void => {
        state.waiting.remove(waiter);
        this.#announce(state);
        this.#forgetIfIdle(group, state);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      state.waiting.add(waiter);
      this.#announce(state);
    });
    return this.#releaser(group, state);
  }

  /** Requests holding a slot in `group` now. */
  active(group: string): number {
    return this.#groups.get(group)?.active ?? 0;
  }

  /** Requests waiting for a slot in `group` now. */
  waiting(group: string): number {
    return this.#groups.get(group)?.waiting.size ?? 0;
  }

  #releaser(group: string, state: Group): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = state.waiting.takeTurn();
      if (next === undefined) {
        state.active -= 1;
        this.#forgetIfIdle(group, state);
        return;
      }
      next.admit(); // the slot passes on: active stays the same
      this.#announce(state);
    };
  }

  // Tells every waiter its place, when it changed (a newcomer may go ahead of others).
  #announce(state: Group): void {
    state.waiting.order().forEach((waiter, index) => {
      const place = index + 1;
      if (this.#places.get(waiter) !== place) {
        this.#places.set(waiter, place);
        waiter.onPlace(place);
      }
    });
  }

  #forgetIfIdle(group: string, state: Group): void {
    if (state.active === 0 && state.waiting.size === 0) this.#groups.delete(group);
  }
}
