/**
 * Decisions of sharded mode, without I/O: whether the store allows it, how many shards to
 * run, and which guilds a shard process serves.
 */
import { ShardClientUtil } from 'discord.js';

/** Why sharded mode cannot run on this store, or undefined when it can. */
export function shardingRefusal(storeUrl: string): string | undefined {
  if (/^rediss?:\/\//.test(storeUrl)) return undefined;
  return [
    'Sharded mode needs a shared store: set STORE_URL=redis://HOST:PORT.',
    'With the SQLite store every shard process would keep its own rate budgets, so a key used by',
    'servers on two shards would be sent twice its limits and earn 429s, and the settings file',
    'would have several writers. Use `npm start` (one process) with SQLite.',
  ].join('\n');
}

/** The shard count: the configured number, or Discord's recommendation (`shards` of GET /gateway/bot) for `auto`. */
export function shardCountFrom(configured: number | 'auto', gatewayBot: unknown): number {
  if (configured !== 'auto') return configured;
  const shards = (gatewayBot as { shards?: unknown } | null)?.shards;
  if (typeof shards !== 'number' || !Number.isInteger(shards) || shards < 1) {
    throw new Error('Discord did not say how many shards to run (GET /gateway/bot)');
  }
  return shards;
}

/** The shard that receives a guild's events, by Discord's formula `(guild_id >> 22) % shard_count`. */
export function shardOf(guildId: string, shardCount: number): number {
  return Number((BigInt(guildId) >> 22n) % BigInt(shardCount));
}

/**
 * Whether a process serves a guild: always when unsharded (`shard` null), else when the guild's
 * shard, as discord.js routes it, is one of the process's shards.
 */
export function ownsGuild(
  shard: { readonly ids: readonly number[]; readonly count: number } | null,
  guildId: string,
): boolean {
  return (
    shard === null || shard.ids.includes(ShardClientUtil.shardIdForGuildId(guildId, shard.count))
  );
}
