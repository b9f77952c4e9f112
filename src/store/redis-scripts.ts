import { createHash } from 'node:crypto';
import type { RedisConnection } from './redis.ts';

/**
 * Take one unit, or say how long to wait. KEYS[1]: the sorted set of request
 * times (score = time). ARGV: now, a unique member, ttl ms, then count and
 * window (with margin) per limit. Prunes what no window sees, then for each
 * limit the request that must leave its window first is the count-th newest.
 * Replies {1} when taken, else {0, wait ms as text, 1-based binding limit}.
 */
export const TAKE_SCRIPT = `
local key = KEYS[1]
local now = tonumber(ARGV[1])
local horizon = 0
for i = 4, #ARGV, 2 do
  local window = tonumber(ARGV[i + 1])
  if window > horizon then horizon = window end
end
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - horizon)
local size = redis.call('ZCARD', key)
local wait, binding = 0, 0
for i = 4, #ARGV, 2 do
  local count = tonumber(ARGV[i])
  local window = tonumber(ARGV[i + 1])
  if size >= count then
    local oldest = redis.call('ZRANGE', key, size - count, size - count, 'WITHSCORES')
    local w = tonumber(oldest[2]) + window - now
    if w > wait then
      wait = w
      binding = (i - 2) / 2
    end
  end
end
if binding > 0 then return {0, tostring(wait), binding} end
redis.call('ZADD', key, now, ARGV[2])
redis.call('PEXPIRE', key, tonumber(ARGV[3]))
return {1}
`;

/**
 * Move one request counted at ARGV[1] (takenAt) to ARGV[2] (answeredAt); ARGV[3]: ttl ms.
 * Requests taken at the same moment are interchangeable, so any one of them moves.
 */
export const RESTAMP_SCRIPT = `
local key = KEYS[1]
local found = redis.call('ZRANGEBYSCORE', key, ARGV[1], ARGV[1], 'LIMIT', 0, 1)
if #found == 0 then return 0 end
redis.call('ZADD', key, 'XX', ARGV[2], found[1])
redis.call('PEXPIRE', key, tonumber(ARGV[3]))
return 1
`;

/** A Lua script run by its hash (EVALSHA), loaded again when Redis has forgotten it. */
export class RedisScript {
  readonly #source: string;
  readonly #sha: string;

  constructor(source: string) {
    this.#source = source;
    this.#sha = createHash('sha1').update(source).digest('hex');
  }

  /** Runs the script atomically on `keys` with `args`. */
  async run(redis: RedisConnection, keys: string[], args: string[]): Promise<unknown> {
    try {
      return await redis.evalSha(this.#sha, { keys, arguments: args });
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return redis.eval(this.#source, { keys, arguments: args });
    }
  }
}
