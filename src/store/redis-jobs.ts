/**
 * v3's concurrent-job slots shared by every process on one Redis: per key a sorted set of job
 * references scored by when their lease runs out, taken by a Lua script so two shards can never
 * both take the last slot. A process that dies leaves leases that expire by themselves.
 */
import type { JobSlots, SlotTake } from '../tts/v3/index.ts';
import type { RedisConnection } from './redis.ts';
import { RedisScript } from './redis-scripts.ts';

/**
 * KEYS[1]: the key's leases (score = lease end). ARGV: now, ref, cap, until. Drops run-out
 * leases; holds `ref` when fewer than `cap` remain. Replies {1}, or {0, ms until the earliest
 * lease runs out}.
 */
const TAKE_SLOT_SCRIPT = `
local key = KEYS[1]
local now = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
if redis.call('ZCARD', key) >= tonumber(ARGV[3]) then
  local first = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  return {0, tostring(tonumber(first[2]) - now)}
end
redis.call('ZADD', key, tonumber(ARGV[4]), ARGV[2])
local last = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
redis.call('PEXPIRE', key, math.floor(tonumber(last[2]) - now) + 1000)
return {1}
`;

/**
 * KEYS[1]: the key's leases. ARGV: ref, now, until. Extends a lease still held (`XX`), and the
 * set's expiry to its last lease (times are the callers', so the expiry is relative).
 */
const RENEW_SLOT_SCRIPT = `
local key = KEYS[1]
if redis.call('ZADD', key, 'XX', 'CH', tonumber(ARGV[3]), ARGV[1]) == 0 then return 0 end
local last = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
redis.call('PEXPIRE', key, math.floor(tonumber(last[2]) - tonumber(ARGV[2])) + 1000)
return 1
`;

/** Job slots in Redis, shared by every shard (see the file comment). */
export class RedisJobSlots implements JobSlots {
  readonly #redis: RedisConnection;
  readonly #prefix: string;
  readonly #take = new RedisScript(TAKE_SLOT_SCRIPT);
  readonly #renew = new RedisScript(RENEW_SLOT_SCRIPT);
  readonly #release = new RedisScript("return redis.call('ZREM', KEYS[1], ARGV[1])");

  constructor(redis: RedisConnection, prefix = 'tts-bot:jobs') {
    this.#redis = redis;
    this.#prefix = prefix;
  }

  async take(keyId: string, ref: string, cap: number, now: number, until: number) {
    const args = [String(now), ref, String(cap), String(until)];
    const reply = await this.#take.run(this.#redis, [this.#key(keyId)], args);
    if (!Array.isArray(reply) || reply.length === 0) throw new Error('job slot script: bad reply');
    if (Number(reply[0]) === 1) return { ok: true } as const satisfies SlotTake;
    return { ok: false, waitMs: Math.max(1, Number(reply[1])) } as const satisfies SlotTake;
  }

  async renew(keyId: string, ref: string, now: number, until: number): Promise<void> {
    await this.#renew.run(this.#redis, [this.#key(keyId)], [ref, String(now), String(until)]);
  }

  async release(keyId: string, ref: string): Promise<void> {
    await this.#release.run(this.#redis, [this.#key(keyId)], [ref]);
  }

  #key(keyId: string): string {
    return `${this.#prefix}:${keyId}`;
  }
}
