import type Keyv from 'keyv';
import { z } from 'zod';
import { dayKey, lastDays } from './days.ts';

/** One server's generations on one UTC day, in total and per member. */
export interface UsageDay {
  readonly day: string;
  readonly total: number;
  readonly members: Readonly<Record<string, number>>;
}

/**
 * What the bot recorded of each generation: per server, per member, per day. The only way
 * usage counts are written or read; what `/usage` and the quota line of `/say` show.
 */
export interface UsageLedger {
  /** Counts one generation the member caused at `at`. */
  record(guildId: string, userId: string, at: number): Promise<void>;
  /** The server's last `days` days up to the day of `now`, oldest first (days without use are zero). */
  history(guildId: string, days: number, now: number): Promise<UsageDay[]>;
}

const daySchema = z.object({
  total: z.number().int().nonnegative(),
  members: z.record(z.string(), z.number().int().nonnegative()),
});

/** Days kept: the 14 that `/usage` shows and a day's slack. */
const KEEP_MS = 15 * 86_400_000;

/** The usage ledger in keyv: one record per server and day, expiring after 15 days. */
export class KeyvUsageLedger implements UsageLedger {
  readonly #keyv: Keyv;
  /** Updates of one server run one after another, so no count is lost to a concurrent write. */
  readonly #tails = new Map<string, Promise<void>>();

  constructor(keyv: Keyv) {
    this.#keyv = keyv;
  }

  record(guildId: string, userId: string, at: number): Promise<void> {
    const previous = this.#tails.get(guildId) ?? Promise.resolve();
    const next = previous.then(async () => {
      const key = storeKey(guildId, dayKey(at));
      const day = await this.#read(key);
      await this.#keyv.set(
        key,
        {
          total: day.total + 1,
          members: { ...day.members, [userId]: (day.members[userId] ?? 0) + 1 },
        },
        KEEP_MS,
      );
    });
    const tail = next.catch(() => undefined);
    this.#tails.set(guildId, tail);
    void tail.then(() => {
      if (this.#tails.get(guildId) === tail) this.#tails.delete(guildId);
    });
    return next;
  }

  async history(guildId: string, days: number, now: number): Promise<UsageDay[]> {
    return Promise.all(
      lastDays(now, days).map(async (day) => ({
        day,
        ...(await this.#read(storeKey(guildId, day))),
      })),
    );
  }

  async #read(key: string): Promise<z.infer<typeof daySchema>> {
    const parsed = daySchema.safeParse(await this.#keyv.get(key));
    return parsed.success ? parsed.data : { total: 0, members: {} };
  }
}

function storeKey(guildId: string, day: string): string {
  return `usage:${guildId}:${day}`;
}
