/**
 * v3's cap on a key's concurrent generations as one more budget: a slot is held from submission
 * (or the stream's start) until the job is seen to end, as a lease that each sighting of the
 * job running renews. A job nobody watches any more (its item was skipped) frees its slot when
 * the lease runs out, since the server may still be running it.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.ts';
import { TtsError } from '../errors.ts';

/** Result of asking for a slot: held, or how long until the earliest lease runs out. */
export type SlotTake = { readonly ok: true } | { readonly ok: false; readonly waitMs: number };

/**
 * Where the slots of every key live: in memory for one process, or Redis for every shard
 * (`RedisJobSlots`). `take` must be atomic per key.
 */
export interface JobSlots {
  /** Holds a slot for `ref` until `until` (epoch ms) when fewer than `cap` leases of the key run at `now`. */
  take(keyId: string, ref: string, cap: number, now: number, until: number): Promise<SlotTake>;
  /** Extends the lease of `ref` to `until` (it is `now`); nothing when it is no longer held. */
  renew(keyId: string, ref: string, now: number, until: number): Promise<void>;
  /** Gives the slot of `ref` back. */
  release(keyId: string, ref: string): Promise<void>;
}

/** Slots in this process's memory: exact for one process (the SQLite store). */
export class MemoryJobSlots implements JobSlots {
  readonly #keys = new Map<string, Map<string, number>>();

  async take(keyId: string, ref: string, cap: number, now: number, until: number) {
    const leases = this.#leases(keyId, now);
    if (leases.size >= cap) {
      return { ok: false, waitMs: Math.max(1, Math.min(...leases.values()) - now) } as const;
    }
    leases.set(ref, until);
    return { ok: true } as const;
  }

  async renew(keyId: string, ref: string, _now: number, until: number): Promise<void> {
    const leases = this.#keys.get(keyId);
    if (leases?.has(ref)) leases.set(ref, until);
  }

  async release(keyId: string, ref: string): Promise<void> {
    const leases = this.#keys.get(keyId);
    leases?.delete(ref);
    if (leases?.size === 0) this.#keys.delete(keyId);
  }

  #leases(keyId: string, now: number): Map<string, number> {
    let leases = this.#keys.get(keyId);
    if (leases === undefined) {
      leases = new Map();
      this.#keys.set(keyId, leases);
    }
    for (const [ref, until] of leases) if (until <= now) leases.delete(ref);
    return leases;
  }
}

/** Settings of a key's {@link JobTracker}. */
export interface JobTrackerOptions {
  readonly slots: JobSlots;
  readonly keyId: string;
  readonly cap: number;
  readonly clock: Clock;
  /** How long a slot is held past the last sign of its job running. */
  readonly leaseMs: number;
  /** Longest wait for a slot before failing with `quota_exhausted`. */
  readonly maxWaitMs: number;
  /** How often a waiting request looks again (another shard may free a slot at any time). */
  readonly recheckMs?: number | undefined;
  /** A failure of the slot store: the job goes ahead unheld (a 429 is retried), reported here. */
  readonly onError: (error: unknown) => void;
  /**
   * Asks the API how a generation stands (a status call, which ends its slot if it is over).
   * Used only when no slot is free and some are held by jobs nobody watches any more.
   */
  readonly probe?: ((generationId: string) => Promise<void>) | undefined;
}

/** How often a job nobody watches may be asked about while slots are short. */
const PROBE_EVERY_MS = 1000;

/** Generations whose slot a later sighting may still end: far more than a key runs at once. */
const MAX_WATCHED = 1000;

/** A slot held for one job. */
export interface HeldJob {
  readonly ref: string;
}

/** The concurrent jobs of one key: takes, renews and gives back their slots. */
export class JobTracker {
  readonly #options: JobTrackerOptions;
  readonly #byGeneration = new Map<string, HeldJob>();
  /** Generations given up (an item skipped mid-stream): when they were last asked about. */
  readonly #abandoned = new Map<string, { readonly since: number; probedAt: number }>();
  /** Wakes waiters of this process when a slot is given back. */
  #freed = new AbortController();

  constructor(options: JobTrackerOptions) {
    this.#options = options;
  }

  /** Waits for a free slot and holds it for a job about to start. */
  async acquire(signal?: AbortSignal): Promise<HeldJob> {
    const { slots, keyId, cap, clock, leaseMs, maxWaitMs } = this.#options;
    const job: HeldJob = { ref: randomUUID() };
    const startedAt = clock.now();
    for (;;) {
      signal?.throwIfAborted();
      const now = clock.now();
      let taken: SlotTake;
      try {
        taken = await slots.take(keyId, job.ref, cap, now, now + leaseMs);
      } catch (error) {
        this.#options.onError(error);
        return job;
      }
      if (taken.ok) return job;
      if (now - startedAt >= maxWaitMs) {
        throw new TtsError('quota_exhausted', `all ${cap} concurrent generations are in use`, {
          retryAt: now + taken.waitMs,
          limit: { count: cap, windowMs: leaseMs },
        });
      }
      if (await this.#probeAbandoned(now)) continue;
      const freed = this.#freed.signal;
      const wake = signal === undefined ? freed : AbortSignal.any([signal, freed]);
      const wait = Math.min(taken.waitMs, this.#options.recheckMs ?? 250);
      await clock.sleep(wait, wake).catch(() => signal?.throwIfAborted());
    }
  }

  /** The job became generation `generationId`: its later sightings renew or end the slot. */
  bind(job: HeldJob, generationId: string): void {
    this.#byGeneration.set(generationId, job);
    // Jobs abandoned and never seen again are forgotten, oldest first (their leases ran out).
    for (const oldest of this.#byGeneration.keys()) {
      if (this.#byGeneration.size <= MAX_WATCHED) break;
      this.#byGeneration.delete(oldest);
    }
  }

  /** Jobs given up whose leases may still hold slots (bounded; for tests and diagnostics). */
  get abandonedCount(): number {
    return this.#abandoned.size;
  }

  /** Generation `generationId` was seen running: its slot is held a lease from now. */
  running(generationId: string): void {
    const job = this.#byGeneration.get(generationId);
    if (job !== undefined) this.renew(job);
  }

  /** Holds the slot of `job` a lease from now. */
  renew(job: HeldJob): void {
    const { slots, keyId, clock, leaseMs } = this.#options;
    const now = clock.now();
    slots.renew(keyId, job.ref, now, now + leaseMs).catch(this.#options.onError);
  }

  /** Generation `generationId` ended (completed, failed, or unknown to the server): its slot is free. */
  ended(generationId: string): void {
    this.#abandoned.delete(generationId);
    const job = this.#byGeneration.get(generationId);
    if (job === undefined) return;
    this.#byGeneration.delete(generationId);
    this.release(job);
  }

  /** Gives the slot of `job` back at once (the server never started it, or said it ended). */
  release(job: HeldJob): void {
    for (const [id, held] of this.#byGeneration) if (held === job) this.#byGeneration.delete(id);
    const { slots, keyId } = this.#options;
    slots.release(keyId, job.ref).then(() => this.#wake(), this.#options.onError);
  }

  /**
   * Stops watching `job`: the server may still run it, so its slot stays held until the lease
   * runs out (a later sighting of its generation still ends it at once).
   */
  abandon(job: HeldJob): void {
    this.renew(job);
    const now = this.#options.clock.now();
    for (const [id, held] of this.#byGeneration) {
      if (held === job) this.#abandoned.set(id, { since: now, probedAt: now });
    }
    // Probing prunes them only when every slot is taken: on a key that never fills its slots,
    // jobs whose leases ran out are let go here, and at most as many are kept as are watched.
    const { leaseMs } = this.#options;
    for (const [id, state] of this.#abandoned) {
      if (now - state.since <= leaseMs && this.#abandoned.size <= MAX_WATCHED) break;
      this.#abandoned.delete(id);
    }
  }

  /**
   * Asks after the jobs given up whose leases still hold slots (not more than once a second
   * each); true when one turned out to have ended, so a slot may be free.
   */
  async #probeAbandoned(now: number): Promise<boolean> {
    const { probe, leaseMs } = this.#options;
    if (probe === undefined) return false;
    const due: string[] = [];
    for (const [id, state] of this.#abandoned) {
      if (now - state.since > leaseMs) this.#abandoned.delete(id);
      else if (now - state.probedAt >= PROBE_EVERY_MS) {
        state.probedAt = now;
        due.push(id);
      }
    }
    if (due.length === 0) return false;
    const before = this.#abandoned.size;
    await Promise.all(due.map((id) => probe(id).catch(this.#options.onError)));
    return this.#abandoned.size < before;
  }

  #wake(): void {
    const freed = this.#freed;
    this.#freed = new AbortController();
    freed.abort();
  }
}
