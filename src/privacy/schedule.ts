/**
 * When a removed server's data is deleted, pure: the pending removal a `GUILD_DELETE` left, the
 * retention in force, and what the process knows of the server now decide it.
 */

/** A server the bot was removed from (not an outage), whose data waits to be deleted. */
export interface PendingRemoval {
  readonly guildId: string;
  /** When the removal was seen (epoch ms). */
  readonly removedAt: number;
}

/**
 * When a pending removal's data is deleted: `DATA_RETENTION` as configured now, counted from the
 * removal. A lowered retention applies to servers removed before: data is never kept longer
 * than the setting says.
 */
export function deletionDue(removal: PendingRemoval, retentionMs: number): number {
  return removal.removedAt + retentionMs;
}

/**
 * What one sweep does with a pending removal: `skip` it (another shard serves the server: that
 * one sees it added back), `cancel` it (the bot is in the server again), `forget` the server
 * (its retention is over), or `wait`.
 */
export type RemovalAction = 'skip' | 'cancel' | 'forget' | 'wait';

/** What a process knows when it looks at a pending removal. */
export interface RemovalFacts {
  readonly now: number;
  readonly retentionMs: number;
  /** The server is served by this process (its shard; always true unsharded). */
  readonly owned: boolean;
  /**
   * The bot is in the server: added back, maybe while no process ran (then no `guildCreate`
   * comes, only the server in READY).
   */
  readonly present: boolean;
}

/** The {@link RemovalAction} for `removal` given `facts`. */
export function removalAction(removal: PendingRemoval, facts: RemovalFacts): RemovalAction {
  if (!facts.owned) return 'skip';
  if (facts.present) return 'cancel';
  return facts.now >= deletionDue(removal, facts.retentionMs) ? 'forget' : 'wait';
}

/**
 * How long the sweeper sleeps before the next sweep: until the earliest of `dues` (the
 * deletion times still ahead), at most `sweepEveryMs`, never less than 0.
 */
export function nextSweepIn(dues: readonly number[], now: number, sweepEveryMs: number): number {
  return Math.max(0, Math.min(sweepEveryMs, ...dues.map((due) => due - now)));
}
