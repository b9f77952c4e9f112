/** A few requests at once per server, the others waiting in line in arrival order. */

interface Waiter {
  readonly admit: () => void;
  readonly onPlace: (place: number) => void;
}

interface Group {
  active: number;
  readonly waiting: Waiter[];
}

/** Counting slots per group (a server), first come, first served. */
export class Slots {
  readonly #max: number;
  readonly #groups = new Map<string, Group>();

  constructor(max: number) {
    if (!Number.isInteger(max) || max < 1)
      throw new RangeError(`Slots: max must be >= 1, got ${max}`);
    this.#max = max;
  }

  /**
   * Waits for a slot in `group`; `onPlace` hears the 1-based place in line whenever it changes
   * (not called when a slot is free at once). Resolves with the slot's release (idempotent).
   * An abort while waiting leaves the line and rejects with the signal's reason.
   */
  async acquire(
    group: string,
    onPlace: (place: number) => void,
    signal?: AbortSignal,
  ): Promise<() => void> {
    signal?.throwIfAborted();
    let entry = this.#groups.get(group);
    if (entry === undefined) {
      entry = { active: 0, waiting: [] };
      this.#groups.set(group, entry);
    }
    const state = entry;
    if (state.active < this.#max && state.waiting.length === 0) {
      state.active += 1;
      return this.#releaser(group, state);
    }
    await new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        admit: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        onPlace,
      };
      const onAbort = (): void => {
        const index = state.waiting.indexOf(waiter);
        if (index >= 0) state.waiting.splice(index, 1);
        this.#announce(state, index);
        this.#forgetIfIdle(group, state);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      state.waiting.push(waiter);
      onPlace(state.waiting.length);
    });
    return this.#releaser(group, state);
  }

  /** Requests holding a slot in `group` now. */
  active(group: string): number {
    return this.#groups.get(group)?.active ?? 0;
  }

  /** Requests waiting for a slot in `group` now. */
  waiting(group: string): number {
    return this.#groups.get(group)?.waiting.length ?? 0;
  }

  #releaser(group: string, state: Group): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = state.waiting.shift();
      if (next === undefined) {
        state.active -= 1;
        this.#forgetIfIdle(group, state);
        return;
      }
      next.admit(); // the slot passes on: active stays the same
      this.#announce(state, 0);
    };
  }

  // Tells everyone behind `from` their new place.
  #announce(state: Group, from: number): void {
    state.waiting.forEach((waiter, index) => {
      if (index >= from) waiter.onPlace(index + 1);
    });
  }

  #forgetIfIdle(group: string, state: Group): void {
    if (state.active === 0 && state.waiting.length === 0) this.#groups.delete(group);
  }
}
