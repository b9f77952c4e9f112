/**
 * Round-robin turns between requesters for items not yet given a turn.
 *
 * Fairness rule: requesters with waiting items form a rotation. A turn goes to the
 * requester at the front of the rotation, who gives up their OLDEST waiting item (FIFO
 * within a requester) and moves to the back, or leaves the rotation if nothing of
 * theirs is waiting any more. A requester with nothing waiting who enqueues joins at
 * the back: every requester already waiting gets one turn before them. Hence, while a
 * requester keeps waiting, nobody else gets two turns before theirs. A requester who
 * withdraws an item keeps their place in the rotation; their next item moves into it.
 */

/** What the rotation needs to know about an item. */
export interface Turnable {
  readonly id: string;
  readonly requesterId: string;
}

/** The waiting items of a queue, handed out one turn at a time in round-robin order. */
export class RoundRobin<I extends Turnable> {
  // Map keys keep insertion order; deleting and re-inserting a requester moves them to
  // the back, so the key order IS the rotation.
  readonly #lanes = new Map<string, I[]>();
  #size = 0;

  /** Number of waiting items, all requesters together. */
  get size(): number {
    return this.#size;
  }

  /** Number of waiting items of one requester. */
  countOf(requesterId: string): number {
    return this.#lanes.get(requesterId)?.length ?? 0;
  }

  /** Adds an item behind the requester's other waiting items; a new requester joins at the back. */
  add(item: I): void {
    const lane = this.#lanes.get(item.requesterId);
    if (lane) lane.push(item);
    else this.#lanes.set(item.requesterId, [item]);
    this.#size += 1;
  }

  /** Gives the next turn: the front requester's oldest item; that requester moves to the back. */
  take(): I | undefined {
    for (const [requesterId, lane] of this.#lanes) {
      const item = lane.shift();
      this.#lanes.delete(requesterId);
      if (lane.length > 0) this.#lanes.set(requesterId, lane);
      if (item) this.#size -= 1;
      return item;
    }
    return undefined;
  }

  /** Withdraws a waiting item; a requester left with nothing waiting leaves the rotation. */
  remove(item: I): boolean {
    const lane = this.#lanes.get(item.requesterId);
    const index = lane?.findIndex((waiting) => waiting.id === item.id) ?? -1;
    if (!lane || index < 0) return false;
    lane.splice(index, 1);
    if (lane.length === 0) this.#lanes.delete(item.requesterId);
    this.#size -= 1;
    return true;
  }

  /** The waiting items in the order `take` would hand them out if nothing else changed. */
  order(): I[] {
    // Requesters never rejoin while only taking, so the order is by rounds: round k holds
    // the k-th waiting item of every requester that has one, in rotation order.
    const lanes = [...this.#lanes.values()];
    const longest = Math.max(0, ...lanes.map((lane) => lane.length));
    const ordered: I[] = [];
    for (let round = 0; round < longest; round += 1) {
      for (const lane of lanes) {
        const item = lane[round];
        if (item) ordered.push(item);
      }
    }
    return ordered;
  }

  /** Removes every waiting item and returns them in turn order. */
  drain(): I[] {
    const ordered = this.order();
    this.#lanes.clear();
    this.#size = 0;
    return ordered;
  }
}
