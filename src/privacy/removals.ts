import type Keyv from 'keyv';
import { z } from 'zod';
import { keysUnder } from '../store/index.ts';
import type { PendingRemoval } from './schedule.ts';

const PREFIX = 'forget:';
const recordSchema = z.object({ removedAt: z.number() });

/**
 * The pending removals in the bot's store (`forget:<guild id>`, kept until done or cancelled),
 * so a deletion survives restarts. The only way they are read or written. One record per
 * server: processes never rewrite each other's records (a server lives on one shard).
 */
export class RemovalRecords {
  readonly #keyv: Keyv;

  constructor(keyv: Keyv) {
    this.#keyv = keyv;
  }

  /** Records that the bot left `guildId` at `removedAt`; an earlier pending removal is kept. */
  async add(guildId: string, removedAt: number): Promise<void> {
    if ((await this.get(guildId)) !== undefined) return;
    await this.#keyv.set(`${PREFIX}${guildId}`, { removedAt });
  }

  /** The server's pending removal, or undefined (none, or unreadable). */
  async get(guildId: string): Promise<PendingRemoval | undefined> {
    const parsed = recordSchema.safeParse(await this.#keyv.get(`${PREFIX}${guildId}`));
    return parsed.success ? { guildId, removedAt: parsed.data.removedAt } : undefined;
  }

  /** Drops the server's pending removal (done, or the bot is back); true when there was one. */
  async remove(guildId: string): Promise<boolean> {
    return this.#keyv.delete(`${PREFIX}${guildId}`);
  }

  /** Every pending removal (records that do not parse, which the bot never writes, are left out). */
  async list(): Promise<PendingRemoval[]> {
    const found: PendingRemoval[] = [];
    for (const key of await keysUnder(this.#keyv, PREFIX)) {
      const removal = await this.get(key.slice(PREFIX.length));
      if (removal !== undefined) found.push(removal);
    }
    return found;
  }
}
