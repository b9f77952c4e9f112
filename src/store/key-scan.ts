/**
 * Listing the keys of one kind of record (`usage:<guild>:`, `preview:<key id>:` …), which keyv
 * itself cannot do on every backend: forgetting a server must find records whose full key it
 * cannot compute (days, voices, hashed speech). SQLite reads its table, Redis SCANs.
 */
import KeyvRedis from '@keyv/redis';
import type Keyv from 'keyv';
import { withTimeout } from './guard.ts';
import { OPERATION_TIMEOUT_MS } from './keyv.ts';
import { NodeSqliteStore } from './sqlite.ts';

/** Keys asked of Redis per SCAN call. */
const SCAN_BATCH = 500;

/**
 * The keys of `keyv` that start with `prefix`, as `keyv.get` and `keyv.delete` take them. Each
 * store call fails with `StoreUnavailableError` like any other. Expired records not yet swept
 * are listed too (deleting them is what forgetting wants). A Redis SCAN may list a key twice.
 */
export async function keysUnder(keyv: Keyv, prefix: string): Promise<string[]> {
  const namespace = keyv.useKeyPrefix && keyv.namespace ? `${keyv.namespace}:` : '';
  const full = `${namespace}${prefix}`;
  const store: unknown = keyv.store;
  let stored: string[];
  if (store instanceof NodeSqliteStore) {
    stored = await withTimeout(() => store.keysStartingWith(full), 'scan', OPERATION_TIMEOUT_MS);
  } else if (store instanceof KeyvRedis) {
    stored = await redisKeys(store, full);
  } else if (store instanceof Map) {
    stored = [...store.keys()].filter(
      (key): key is string => typeof key === 'string' && key.startsWith(full),
    );
  } else {
    throw new Error('this store cannot list its keys');
  }
  return [...new Set(stored.map((key) => key.slice(namespace.length)))];
}

/** Deletes the keys of {@link keysUnder} in batches; resolves with how many there were. */
export async function deleteKeysUnder(keyv: Keyv, prefix: string): Promise<number> {
  const keys = await keysUnder(keyv, prefix);
  for (let start = 0; start < keys.length; start += SCAN_BATCH) {
    await keyv.delete(keys.slice(start, start + SCAN_BATCH));
  }
  return keys.length;
}

async function redisKeys(store: KeyvRedis<unknown>, full: string): Promise<string[]> {
  const stored = store.createKeyPrefix(full, store.namespace);
  const unprefixed = store.createKeyPrefix('', store.namespace);
  const client = await withTimeout(() => store.getClient(), 'connect', OPERATION_TIMEOUT_MS);
  const keys: string[] = [];
  let cursor = '0';
  do {
    const reply = await withTimeout(
      () => client.scan(cursor, { MATCH: `${globEscape(stored)}*`, COUNT: SCAN_BATCH }),
      'SCAN',
      OPERATION_TIMEOUT_MS,
    );
    cursor = String(reply.cursor);
    for (const key of reply.keys) keys.push(String(key).slice(unprefixed.length));
  } while (cursor !== '0');
  return keys;
}

/** `text` as a Redis glob that matches only itself. */
function globEscape(text: string): string {
  return text.replace(/[\\*?[\]]/g, (c) => `\\${c}`);
}
