/**
 * Fair play order: round-robin by requester over every pending item, whatever its generation
 * state (an item generated early still waits for its turn).
 *
 * Rule: a requester's pending items stand in their lane, oldest first; the k-th item of a lane
 * plays in round `base + k`. A turn (an item starting to play, or the head being skipped) goes
 * to the lowest round; within a round, to whoever was served, or began waiting, longest ago.
 * A requester who starts waiting joins the
 * round being played, unless they were already served in it: then they join the next one.
 * Hence a newcomer plays right after the item playing now (bob queues three, carol one a
 * moment later: carol plays second), and while a requester keeps waiting, nobody else gets two
 * turns before theirs. A requester who withdraws an item keeps their place: their next item
 * moves into it. `forget` starts afresh when the queue has gone idle.
 */

/** What the order needs to know about an item. */
export interface Turnable {
  readonly id: string;
  readonly requesterId: string;
}

interface Lane<I> {
  readonly items: I[];
  /** Round of `items[0]`. */
  base: number;
  /** When this requester was last served or began waiting: smaller goes first within a round. */
  key: number;
}

/** The pending items of a queue in fair play order, handed out one turn at a time. */
export class FairOrder<I extends Turnable> {
  readonly #lanes = new Map<string, Lane<I>>();
  /** Requesters served in the current round: they rejoin in the next round. */
  readonly #served = new Set<string>();
  /** The round of the last turn. Every lane's base is this round or the next. */
  #round = 0;
  /** Orders serves and arrivals. */
  #clock = 0;
  #size = 0;
  /** The order as last computed; dropped by every change. */
  #ordered: I[] | undefined;

  /** Number of pending items, all requesters together. */
  get size(): number {
    return this.#size;
  }

  /** Number of pending items of one requester. */
  countOf(requesterId: string): number {
    return this.#lanes.get(requesterId)?.items.length ?? 0;
  }

  /** Adds an item behind the requester's other pending items. */
  add(item: I): void {
    this.#ordered = undefined;
    const lane = this.#lanes.get(item.requesterId);
    if (lane !== undefined) lane.items.push(item);
    else {
      this.#lanes.set(item.requesterId, {
        items: [item],
        base: this.#served.has(item.requesterId) ? this.#round + 1 : this.#round,
        key: ++this.#clock,
      });
    }
    this.#size += 1;
  }

  /** The item whose turn is next, if any. */
  head(): I | undefined {
    return this.#headLane()?.items[0];
  }

  /** Hands the turn to the head: removes it and counts it as its requester's turn. */
  takeTurn(): I | undefined {
    const lane = this.#headLane();
    const item = lane?.items.shift();
    if (lane === undefined || item === undefined) return undefined;
    this.#ordered = undefined;
    if (lane.base > this.#round) {
      this.#round = lane.base;
      this.#served.clear();
    }
    lane.key = ++this.#clock;
    this.#served.add(item.requesterId);
    lane.base += 1;
    if (lane.items.length === 0) this.#lanes.delete(item.requesterId);
    this.#size -= 1;
    return item;
  }

  /** Withdraws a pending item without using a turn; the requester's later items move up. */
  remove(item: I): boolean {
    const lane = this.#lanes.get(item.requesterId);
    const index = lane?.items.findIndex((pending) => pending.id === item.id) ?? -1;
    if (lane === undefined || index < 0) return false;
    this.#ordered = undefined;
    lane.items.splice(index, 1);
    if (lane.items.length === 0) this.#lanes.delete(item.requesterId);
    this.#size -= 1;
    return true;
  }

  /** The pending items in the order turns would go if nothing else changed. */
  order(): I[] {
    this.#ordered ??= this.#computeOrder();
    return [...this.#ordered];
  }

  #computeOrder(): I[] {
    const lanes = [...this.#lanes.values()].map((lane) => ({ ...lane }));
    let clock = this.#clock;
    const ordered: I[] = [];
    for (let round = this.#round; ordered.length < this.#size; round += 1) {
      const playing = lanes
        .filter((lane) => lane.base <= round && round - lane.base < lane.items.length)
        .sort((a, b) => a.key - b.key);
      for (const lane of playing) {
        const item = lane.items[round - lane.base];
        if (item !== undefined) ordered.push(item);
        lane.key = ++clock;
      }
    }
    return ordered;
  }

  /** Removes every pending item and returns them in turn order. */
  drain(): I[] {
    const ordered = this.order();
    this.#lanes.clear();
    this.#size = 0;
    this.#ordered = undefined;
    return ordered;
  }

  /** Forgets who was served: the queue went idle, so the next request starts a fresh rotation. */
  forget(): void {
    if (this.#size > 0) return;
    this.#served.clear();
    this.#round = 0;
  }

  #headLane(): Lane<I> | undefined {
    let best: Lane<I> | undefined;
    for (const lane of this.#lanes.values()) {
      if (
        best === undefined ||
        lane.base < best.base ||
        (lane.base === best.base && lane.key < best.key)
      )
        best = lane;
    }
    return best;
  }
}
