import type { Logger } from '../log/index.ts';
import type { Clock } from '../tts/index.ts';
import type { ForgetService } from './forget.ts';
import type { RemovalRecords } from './removals.ts';
import { deletionDue, nextSweepIn, removalAction } from './schedule.ts';

/** Longest sleep between sweeps; a deletion is at most this late (and a store outage retried). */
export const SWEEP_EVERY_MS = 3_600_000;
/** Wait before trying again after the store failed a sweep or a deletion. */
const RETRY_MS = 60_000;

/** What a {@link RemovalScheduler} works with. */
export interface RemovalSchedulerOptions {
  readonly forget: Pick<ForgetService, 'forgetGuild' | 'flushDeletions'>;
  readonly records: RemovalRecords;
  readonly clock: Clock;
  /** `DATA_RETENTION`: how long a removed server's data is kept; 0 deletes at once. */
  readonly retentionMs: number;
  /** True for the servers this process serves (its shard's); the others are left to theirs. */
  readonly owns: (guildId: string) => boolean;
  /** True when the bot is in the server now (this process sees it). */
  readonly present: (guildId: string) => boolean;
  /**
   * The servers the store holds records of: at start, those this process owns but is not in
   * were removed while no process ran (Discord sends no `GUILD_DELETE` for them) and are
   * scheduled like any removal. None when absent.
   */
  readonly stored?: () => Promise<Iterable<string>>;
  readonly logger: Logger;
  readonly sweepEveryMs?: number;
}

/**
 * Deletes a removed server's data once `DATA_RETENTION` is over, unless the bot is added back
 * first. A removal is stored before anything else ({@link RemovalRecords}), so a restart picks it
 * up; a sweep at start and then at least hourly handles the due ones. Each server's events
 * (removed, added back, swept) run one at a time, so a re-add never races its deletion. Under a
 * shard manager a process sweeps only its own servers: Discord tells that shard of a re-add.
 */
export class RemovalScheduler {
  readonly #options: RemovalSchedulerOptions;
  readonly #chains = new Map<string, Promise<unknown>>();
  #wake: AbortController | undefined;
  #loop: Promise<void> | undefined;
  #stopped = false;
  /** A removal arrived while a sweep ran: sweep again before sleeping. */
  #rescan = false;
  /** Removals the store refused to record (guild id → when): each sweep tries again. */
  readonly #unrecorded = new Map<string, number>();

  constructor(options: RemovalSchedulerOptions) {
    this.#options = options;
  }

  /** The bot was removed from the server (not an outage): its deletion is scheduled, or run now. */
  removed(guildId: string): Promise<void> {
    const { records, clock, retentionMs, logger } = this.#options;
    return this.#serial(guildId, async () => {
      const now = clock.now();
      try {
        await records.add(guildId, now);
      } catch (error) {
        this.#unrecorded.set(guildId, now);
        throw error;
      }
      logger.info(
        { guildId, deleteAt: new Date(now + retentionMs).toISOString() },
        'removed from a server: its data is deleted after DATA_RETENTION unless the bot is added back',
      );
      if (retentionMs === 0) await this.#settle(guildId);
      else {
        // Its deletion may come before the next planned sweep.
        this.#rescan = true;
        this.#wake?.abort();
      }
    });
  }

  /** The bot was added to the server: a pending deletion of its data is cancelled. */
  readded(guildId: string): Promise<void> {
    this.#unrecorded.delete(guildId);
    return this.#serial(guildId, async () => {
      if (await this.#options.records.remove(guildId))
        this.#options.logger.info({ guildId }, 'added back to a server: its data is kept');
    });
  }

  /**
   * Handles every pending removal once (cancel, delete, or leave for later); resolves with how
   * long until the next sweep is needed.
   */
  async sweep(): Promise<number> {
    const { records, clock, retentionMs, owns, present, logger } = this.#options;
    const sweepEveryMs = this.#options.sweepEveryMs ?? SWEEP_EVERY_MS;
    const dues: number[] = [];
    for (const [guildId, removedAt] of this.#unrecorded) {
      await this.#serial(guildId, () => records.add(guildId, removedAt));
      this.#unrecorded.delete(guildId);
    }
    for (const removal of await records.list()) {
      const facts = { now: clock.now(), retentionMs, owned: owns(removal.guildId) };
      const action = removalAction(removal, { ...facts, present: present(removal.guildId) });
      if (action === 'wait') dues.push(deletionDue(removal, retentionMs));
      if (action !== 'forget' && action !== 'cancel') continue;
      try {
        await this.#serial(removal.guildId, () => this.#settle(removal.guildId));
      } catch (error) {
        logger.warn(
          { err: error, guildId: removal.guildId },
          'could not forget a server; retrying',
        );
        dues.push(clock.now() + RETRY_MS);
      }
    }
    return nextSweepIn(dues, clock.now(), sweepEveryMs);
  }

  /**
   * Schedules the removal of each stored server this process owns that the bot is no longer
   * in (removed while no process ran); resolves with how many. Run once, when ready: a server
   * in an outage is still among the bot's servers then, so it is not taken for removed.
   */
  async adoptMissedRemovals(): Promise<number> {
    const { stored, records, clock, owns, present, logger } = this.#options;
    if (stored === undefined) return 0;
    let adopted = 0;
    for (const guildId of await stored()) {
      if (!owns(guildId) || present(guildId)) continue;
      const added = await this.#serial(guildId, async () => {
        if (present(guildId) || (await records.get(guildId)) !== undefined) return false;
        await records.add(guildId, clock.now());
        return true;
      });
      if (!added) continue;
      adopted += 1;
      logger.info(
        { guildId },
        'removed from a server while no process ran: its data is deleted after DATA_RETENTION unless the bot is added back',
      );
    }
    return adopted;
  }

  /** Sweeps now and then again whenever one is due, until {@link RemovalScheduler.stop}. */
  start(): void {
    this.#loop ??= this.#run();
  }

  /** Stops sweeping; resolves once a deletion under way is finished. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#wake?.abort();
    await this.#loop;
    await Promise.allSettled([...this.#chains.values()]);
  }

  async #run(): Promise<void> {
    const { clock, logger } = this.#options;
    await this.adoptMissedRemovals().catch((error: unknown) =>
      logger.warn({ err: error }, 'could not look for servers removed while no process ran'),
    );
    while (!this.#stopped) {
      this.#rescan = false;
      let delay: number;
      try {
        delay = await this.sweep();
      } catch (error) {
        logger.warn({ err: error }, 'could not read the pending server removals; retrying');
        delay = RETRY_MS;
      }
      if (this.#stopped) return;
      if (this.#rescan) continue;
      const wake = new AbortController();
      this.#wake = wake;
      await clock.sleep(delay, wake.signal).catch((error: unknown) => {
        // Woken early (a new removal, or stopping) is expected; anything else is not.
        if (!wake.signal.aborted) throw error;
      });
    }
  }

  /** Decides again under the server's turn (it may have been added back meanwhile), and acts. */
  async #settle(guildId: string): Promise<void> {
    const { records, forget, clock, retentionMs, owns, present } = this.#options;
    const removal = await records.get(guildId);
    if (removal === undefined) return;
    const facts = {
      now: clock.now(),
      retentionMs,
      owned: owns(guildId),
      present: present(guildId),
    };
    const action = removalAction(removal, facts);
    if (action === 'cancel') await records.remove(guildId);
    if (action !== 'forget') return;
    await forget.forgetGuild(guildId);
    // Last: a failure before this leaves the removal pending, and the next sweep finishes it.
    await records.remove(guildId);
    // The removal record names the server too: gone from the files as well.
    await forget.flushDeletions();
  }

  /** Runs `task` after the server's earlier events; a failure fails only its caller. */
  #serial<R>(guildId: string, task: () => Promise<R>): Promise<R> {
    const previous = this.#chains.get(guildId) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(task);
    this.#chains.set(guildId, next);
    const done = () => {
      if (this.#chains.get(guildId) === next) this.#chains.delete(guildId);
    };
    next.then(done, done);
    return next;
  }
}
