/** Remembers the last message ids seen, so a message is delivered once across reconnects. Pure. */

/** A bounded set of ids: the oldest is forgotten when a new one would pass `capacity`. */
export class RecentIds {
  readonly #capacity: number;
  readonly #ids = new Set<string>();

  constructor(capacity: number) {
    this.#capacity = Math.max(1, capacity);
  }

  /** True the first time `id` is seen within the window, false for a repeat. */
  add(id: string): boolean {
    if (this.#ids.has(id)) return false;
    this.#ids.add(id);
    if (this.#ids.size > this.#capacity) {
      const oldest = this.#ids.values().next();
      if (oldest.done !== true) this.#ids.delete(oldest.value);
    }
    return true;
  }

  /** Ids remembered now (never above the capacity). */
  get size(): number {
    return this.#ids.size;
  }
}
