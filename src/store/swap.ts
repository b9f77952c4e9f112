/**
 * Compare-and-set on one keyv record, across processes: a change read from the record is written
 * only if the record is still what was read, so a write by another process in between (the bot
 * setting a key while `secrets:rotate` reseals the old one) is never overwritten. SQLite does it
 * with one conditional UPDATE, Redis with a script; a memory store is one process's own (its
 * callers' lock is enough).
 */
import KeyvRedis from '@keyv/redis';
import type Keyv from 'keyv';
import { withTimeout } from './guard.ts';
import { OPERATION_TIMEOUT_MS } from './keyv.ts';
import { NodeSqliteStore } from './sqlite.ts';

/** A record as read, and the one way to replace it on that condition. */
export interface SwappableRecord {
  /** The stored value; undefined when there is no record. */
  readonly value: unknown;
  /**
   * Writes `next` if the record is still as read (or still absent); whether it was written.
   * `ttlMs`: the record then expires that long from now (kept for good when absent).
   */
  swap(next: unknown, ttlMs?: number): Promise<boolean>;
}

/**
 * Replaces KEYS[1] by ARGV[2] only while it holds ARGV[1] (or is absent, with ARGV[3] = '1');
 * ARGV[4], when not '0', is its life in ms.
 */
const SWAP_SCRIPT = `
local current = redis.call('GET', KEYS[1])
if (current == false and ARGV[3] == '1') or current == ARGV[1] then
  if ARGV[4] ~= '0' then
    redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[4])
  else
    redis.call('SET', KEYS[1], ARGV[2])
  end
  return 1
end
return 0
`;

/**
 * Swaps of a memory store in this process, per store and key: a read and its swap run under
 * one lock there, so two callers (two shards of one process, two turns at once) cannot both
 * write over what they read.
 */
const memoryLocks = new WeakMap<Keyv, Map<string, Promise<unknown>>>();

/** Reads `key` of `keyv` for a compare-and-set (see {@link SwappableRecord}). */
export async function readSwappable(keyv: Keyv, key: string): Promise<SwappableRecord> {
  const namespace = keyv.useKeyPrefix && keyv.namespace ? `${keyv.namespace}:` : '';
  const full = `${namespace}${key}`;
  const store: unknown = keyv.store;
  if (store instanceof NodeSqliteStore) {
    const raw = await withTimeout(() => store.get<string>(full), 'get', OPERATION_TIMEOUT_MS);
    const text = typeof raw === 'string' ? raw : undefined;
    return {
      value: await storedValue(keyv, text),
      swap: async (next, ttlMs) => {
        const written = await serialized(keyv, next, ttlMs);
        return withTimeout(() => store.replace(full, text, written), 'set', OPERATION_TIMEOUT_MS);
      },
    };
  }
  if (store instanceof KeyvRedis) {
    const client = await withTimeout(() => store.getClient(), 'connect', OPERATION_TIMEOUT_MS);
    const redisKey = store.createKeyPrefix(full, store.namespace);
    const raw = await withTimeout(() => client.get(redisKey), 'GET', OPERATION_TIMEOUT_MS);
    const text = typeof raw === 'string' ? raw : undefined;
    return {
      value: await storedValue(keyv, text),
      swap: async (next, ttlMs) => {
        const written = await serialized(keyv, next, ttlMs);
        const life = ttlMs === undefined ? '0' : String(Math.max(1, Math.ceil(ttlMs)));
        const args = [text ?? '', written, text === undefined ? '1' : '0', life];
        const reply = await withTimeout(
          () => client.eval(SWAP_SCRIPT, { keys: [redisKey], arguments: args }),
          'EVAL',
          OPERATION_TIMEOUT_MS,
        );
        return Number(reply) === 1;
      },
    };
  }
  const value: unknown = await keyv.get(key);
  const read = JSON.stringify(value) ?? '';
  return {
    value,
    swap: (next, ttlMs) =>
      memoryLocked(keyv, key, async () => {
        if ((JSON.stringify(await keyv.get(key)) ?? '') !== read) return false;
        await keyv.set(key, next, ttlMs);
        return true;
      }),
  };
}

/** Runs `run` after every earlier swap of `key` in the memory store `keyv`. */
function memoryLocked<T>(keyv: Keyv, key: string, run: () => Promise<T>): Promise<T> {
  let locks = memoryLocks.get(keyv);
  if (locks === undefined) {
    locks = new Map();
    memoryLocks.set(keyv, locks);
  }
  const held = locks;
  const next = (held.get(key) ?? Promise.resolve()).then(run, run);
  held.set(key, next);
  // The caller sees a failure through `next`; this only forgets the finished lock.
  const done = (): void => {
    if (held.get(key) === next) held.delete(key);
  };
  next.then(done, done);
  return next;
}

async function storedValue(keyv: Keyv, raw: string | undefined): Promise<unknown> {
  if (raw === undefined) return undefined;
  const data = keyv.deserialize === undefined ? JSON.parse(raw) : await keyv.deserialize(raw);
  if (data === undefined || data === null || typeof data !== 'object') return undefined;
  const { value, expires } = data as { value?: unknown; expires?: unknown };
  return typeof expires === 'number' && expires < Date.now() ? undefined : value;
}

async function serialized(keyv: Keyv, value: unknown, ttlMs?: number): Promise<string> {
  const data = { value, expires: ttlMs === undefined ? undefined : Date.now() + ttlMs };
  return keyv.serialize === undefined ? JSON.stringify(data) : await keyv.serialize(data);
}
