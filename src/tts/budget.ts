import type { Limit, Limits } from './limits.ts';
import type { Operation } from './types.ts';

/**
 * Safety margin added to every window: the server counts a request when it
 * arrives, which can be later than when it was sent, so our windows must be
 * a little longer than its windows.
 */
export function windowWithMargin(limit: Limit): number {
  return limit.windowMs + Math.max(50, Math.ceil(limit.windowMs * 0.02));
}

/** How long to wait (ms) before one more request fits every limit, given sorted past request times. */
export function waitTime(limits: readonly Limit[], times: readonly number[], now: number): number {
  let wait = 0;
  for (const limit of limits) {
    if (times.length < limit.count) continue;
    // The request that must leave the window before another may enter.
    const oldest = times[times.length - limit.count];
    if (oldest === undefined) continue;
    wait = Math.max(wait, oldest + windowWithMargin(limit) - now);
  }
  return Math.max(0, wait);
}

/** The longest window (with margin) of `limits`: older requests count for none of them. */
export function horizonOf(limits: readonly Limit[]): number {
  return Math.max(0, ...limits.map(windowWithMargin));
}

/** Drops times that no window can see any more. */
export function prune(limits: readonly Limit[], times: number[], now: number): void {
  const horizon = horizonOf(limits);
  let drop = 0;
  while (drop < times.length && (times[drop] ?? now) <= now - horizon) drop++;
  if (drop > 0) times.splice(0, drop);
}

/** Result of asking for one unit of budget. */
export type Take =
  | { readonly ok: true }
  | { readonly ok: false; readonly waitMs: number; readonly limit: Limit };

/** Usage of one limit, for display. */
export interface LimitUsage {
  readonly limit: Limit;
  readonly used: number;
  /** When the oldest counted request leaves the window (epoch ms), or null when none is counted. */
  readonly resetAt: number | null;
}

/**
 * How much of each limit the request `times` (sorted, oldest first) use at `now`: the one
 * reading of a request log, whichever store (memory or Redis) kept it.
 */
export function usageOf(
  limits: readonly Limit[],
  times: readonly number[],
  now: number,
): LimitUsage[] {
  return limits.map((limit) => {
    const inWindow = times.filter((time) => time > now - windowWithMargin(limit));
    const first = inWindow[0];
    return {
      limit,
      used: inWindow.length,
      resetAt: first === undefined ? null : first + windowWithMargin(limit),
    };
  });
}

/**
 * Where per-key rate budgets live. This is the seam for sharing budgets
 * between shards (Redis); `take` must be atomic per key and operation.
 */
export interface BudgetStore {
  /** Takes one unit of `op` for the key if every limit allows it at `now`; otherwise says how long to wait. */
  take(keyId: string, op: Operation, now: number): Promise<Take>;
  /**
   * Moves one counted request from `takenAt` to `answeredAt`. The server counts
   * a request when it arrives, which is no later than its answer, so windows
   * counted from the answer can never end before the server's do.
   */
  restamp(keyId: string, op: Operation, takenAt: number, answeredAt: number): Promise<void>;
  /** How much of each limit of `op` the key has used at `now`. */
  usage(keyId: string, op: Operation, now: number): Promise<LimitUsage[]>;
  /**
   * Drops what is held in memory for a key that must leave nothing behind (it failed
   * verification and was never in use). Optional: a shared store may keep its entries to expire.
   */
  discard?(keyId: string): void;
}

/** Persistence for request logs whose windows outlive a restart (the daily limit). */
export interface BudgetJournal {
  /**
   * The request times saved under `name` (`keyId:op`), or undefined when none were.
   * A rejection fails the call that needed them; the next call loads again.
   */
  load(name: string): Promise<number[] | undefined>;
  /** Replaces the request times under `name` with `times` (sorted, oldest first). */
  save(name: string, times: readonly number[]): Promise<void>;
}

/** Windows at least this long are written to the journal, so a restart does not forget them. */
const PERSIST_FROM_MS = 3_600_000;

/**
 * Sliding-window logs in memory, with long windows written through to a journal. A log
 * whose requests have all left every window is dropped, so keys tried once do not
 * stay in memory for ever.
 */
export class MemoryBudgetStore implements BudgetStore {
  readonly #limits: Limits;
  readonly #journal: BudgetJournal | undefined;
  readonly #logs = new Map<string, Promise<number[]>>();
  /** The logs whose load finished, for the synchronous sweep. */
  readonly #loaded = new Map<string, number[]>();
  /** Calls under way per log: a log in use is never dropped (a count could be lost). */
  readonly #inUse = new Map<string, number>();
  readonly #sweepEveryMs: number;
  #sweptAt = Number.NEGATIVE_INFINITY;

  constructor(limits: Limits, journal?: BudgetJournal) {
    this.#limits = limits;
    this.#journal = journal;
    const windows = Object.values(limits).flatMap((list) => list.map(windowWithMargin));
    // Often enough to bound memory, rarely enough that sweeping costs nothing.
    this.#sweepEveryMs = Math.min(Math.max(0, ...windows), 60_000);
  }

  /** Logs held in memory (for metrics and tests). */
  get size(): number {
    return this.#logs.size;
  }

  take(keyId: string, op: Operation, now: number): Promise<Take> {
    this.#sweep(now);
    return this.#using(keyId, op, () => this.#take(keyId, op, now));
  }

  async #take(keyId: string, op: Operation, now: number): Promise<Take> {
    const limits = this.#limits[op];
    const times = await this.#log(keyId, op);
    prune(limits, times, now);
    let binding: Limit | undefined;
    let waitMs = 0;
    for (const limit of limits) {
      const wait = waitTime([limit], times, now);
      if (wait > waitMs) [waitMs, binding] = [wait, limit];
    }
    if (binding !== undefined) return { ok: false, waitMs, limit: binding };
    times.push(now);
    if (this.#persisted(op)) await this.#journal?.save(`${keyId}:${op}`, times);
    return { ok: true };
  }

  restamp(keyId: string, op: Operation, takenAt: number, answeredAt: number): Promise<void> {
    if (answeredAt <= takenAt) return Promise.resolve();
    return this.#using(keyId, op, () => this.#restamp(keyId, op, takenAt, answeredAt));
  }

  async #restamp(keyId: string, op: Operation, takenAt: number, answeredAt: number) {
    const times = await this.#log(keyId, op);
    const index = times.indexOf(takenAt);
    if (index === -1) return;
    times.splice(index, 1);
    let at = times.length;
    while (at > 0 && (times[at - 1] ?? 0) > answeredAt) at--;
    times.splice(at, 0, answeredAt);
    if (this.#persisted(op)) await this.#journal?.save(`${keyId}:${op}`, times);
  }

  usage(keyId: string, op: Operation, now: number): Promise<LimitUsage[]> {
    return this.#using(keyId, op, () => this.#usage(keyId, op, now));
  }

  async #usage(keyId: string, op: Operation, now: number): Promise<LimitUsage[]> {
    return usageOf(this.#limits[op], await this.#log(keyId, op), now);
  }

  discard(keyId: string): void {
    for (const name of [...this.#logs.keys()]) {
      if (name.startsWith(`${keyId}:`) && !this.#inUse.has(name)) this.#drop(name);
    }
  }

  /** Runs `call` with the log marked in use, so a sweep cannot drop it meanwhile. */
  async #using<T>(keyId: string, op: Operation, call: () => Promise<T>): Promise<T> {
    const name = `${keyId}:${op}`;
    this.#inUse.set(name, (this.#inUse.get(name) ?? 0) + 1);
    try {
      return await call();
    } finally {
      const left = (this.#inUse.get(name) ?? 1) - 1;
      if (left === 0) this.#inUse.delete(name);
      else this.#inUse.set(name, left);
    }
  }

  /** Drops logs not in use whose requests have all left every window. */
  #sweep(now: number): void {
    if (now - this.#sweptAt < this.#sweepEveryMs) return;
    this.#sweptAt = now;
    for (const [name, times] of this.#loaded) {
      if (this.#inUse.has(name)) continue;
      const op = name.slice(name.lastIndexOf(':') + 1) as Operation;
      prune(this.#limits[op], times, now);
      if (times.length === 0) this.#drop(name);
    }
  }

  #drop(name: string): void {
    this.#logs.delete(name);
    this.#loaded.delete(name);
  }

  #persisted(op: Operation): boolean {
    return this.#limits[op].some((limit) => limit.windowMs >= PERSIST_FROM_MS);
  }

  #log(keyId: string, op: Operation): Promise<number[]> {
    const name = `${keyId}:${op}`;
    let log = this.#logs.get(name);
    if (log === undefined) {
      const journal = this.#persisted(op) ? this.#journal : undefined;
      log = (journal?.load(name) ?? Promise.resolve(undefined)).then((saved) =>
        [...(saved ?? [])].sort((a, b) => a - b),
      );
      this.#logs.set(name, log);
      // A store that is briefly down must not break this budget until restart: forget the failure.
      const loading = log;
      loading.then(
        (times) => {
          if (this.#logs.get(name) === loading) this.#loaded.set(name, times);
        },
        () => {
          if (this.#logs.get(name) === loading) this.#logs.delete(name);
        },
      );
    }
    return log;
  }
}
