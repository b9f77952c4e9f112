import type Keyv from 'keyv';
import { OPERATION_TIMEOUT_MS, type RedisConnection, withTimeout } from '../store/index.ts';

/** Where an earlier version kept the ids, as one keyv value (still the embedded index's home). */
export const LEGACY_INDEX = 'pending:index';

/**
 * The ids of pending entries (keyv cannot list keys on every backend). Adding and removing are
 * each one change that never undoes a concurrent one; ids whose entry is gone are harmless
 * (the journal drops them when it lists).
 */
export interface JournalIndex {
  /** Adds an id; nothing when it is there already. */
  add(id: string): Promise<void>;
  /** Removes ids; ids not there are ignored. */
  remove(ids: readonly string[]): Promise<void>;
  /** Every id, in no particular order. */
  ids(): Promise<string[]>;
}

/**
 * The index as one keyv value (`pending:index`, an array), each change read, edited and written
 * back one at a time in this object. Correct for the embedded store only: a SQLite file belongs
 * to one bot process (sharded mode refuses SQLite), and that process builds one journal over it,
 * so no second writer exists that could read the same array and write back an older one.
 */
export class KeyvJournalIndex implements JournalIndex {
  readonly #keyv: Keyv;
  #chain: Promise<unknown> = Promise.resolve();

  constructor(keyv: Keyv) {
    this.#keyv = keyv;
  }

  add(id: string): Promise<void> {
    return this.#edit((ids) => (ids.includes(id) ? ids : [...ids, id]));
  }

  remove(ids: readonly string[]): Promise<void> {
    return this.#edit((known) => known.filter((id) => !ids.includes(id)));
  }

  async ids(): Promise<string[]> {
    return idsIn(await this.#keyv.get(LEGACY_INDEX));
  }

  #edit(change: (ids: string[]) => string[]): Promise<void> {
    const next = this.#chain.then(async () => {
      await this.#keyv.set(LEGACY_INDEX, change(await this.ids()));
    });
    // A failed change fails its caller; the chain goes on for the next one.
    this.#chain = next.catch(() => undefined);
    return next;
  }
}

/**
 * The index as a Redis set (SADD, SREM, SMEMBERS): each change is one command Redis applies
 * whole, so shard processes sharing the Redis never lose each other's ids. Ids an earlier
 * version kept in keyv's `pending:index` are moved into the set when the ids are read (at
 * start), so what it journalled is still resumed. Commands fail with `StoreUnavailableError`.
 */
export class RedisJournalIndex implements JournalIndex {
  readonly #redis: Pick<RedisConnection, 'sAdd' | 'sRem' | 'sMembers'>;
  readonly #keyv: Keyv;
  readonly #key: string;

  /** `keyv` is the bot's store, read for the old index; `key` names the set. */
  constructor(
    redis: Pick<RedisConnection, 'sAdd' | 'sRem' | 'sMembers'>,
    keyv: Keyv,
    key = 'tts-bot:pending:ids',
  ) {
    this.#redis = redis;
    this.#keyv = keyv;
    this.#key = key;
  }

  async add(id: string): Promise<void> {
    await withTimeout(() => this.#redis.sAdd(this.#key, [id]), 'SADD', OPERATION_TIMEOUT_MS);
  }

  async remove(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await withTimeout(() => this.#redis.sRem(this.#key, [...ids]), 'SREM', OPERATION_TIMEOUT_MS);
  }

  async ids(): Promise<string[]> {
    await this.#adoptLegacy();
    return idsIn(
      await withTimeout(() => this.#redis.sMembers(this.#key), 'SMEMBERS', OPERATION_TIMEOUT_MS),
    );
  }

  /**
   * Moves the old index into the set. Several shards may do it at once: adding is idempotent,
   * and an id added back after its entry was removed points at nothing, so it is dropped.
   */
  async #adoptLegacy(): Promise<void> {
    const saved: unknown = await this.#keyv.get(LEGACY_INDEX);
    if (saved === undefined) return;
    const legacy = idsIn(saved);
    if (legacy.length > 0)
      await withTimeout(() => this.#redis.sAdd(this.#key, legacy), 'SADD', OPERATION_TIMEOUT_MS);
    await this.#keyv.delete(LEGACY_INDEX);
  }
}

function idsIn(saved: unknown): string[] {
  return Array.isArray(saved) ? saved.filter((id): id is string => typeof id === 'string') : [];
}
