import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import KeyvRedis from '@keyv/redis';
import Keyv from 'keyv';
import { guardStore } from './guard.ts';
import { NodeSqliteStore } from './sqlite.ts';

/** Longest wait for one store operation before it counts as unavailable. */
export const OPERATION_TIMEOUT_MS = 5000;

/**
 * Opens the key-value store named by `STORE_URL`: `sqlite://path` (the
 * embedded default, on `node:sqlite`; its folder is created) or `redis://host:port`. Store
 * failures throw a `StoreUnavailableError` at once (a lost write must never be reported as
 * saved, and a member must not wait on a store that is away); Redis reconnects by itself.
 */
export async function openKeyv(storeUrl: string, namespace = 'tts-bot'): Promise<Keyv> {
  if (storeUrl.startsWith('sqlite://')) {
    const path = storeUrl.slice('sqlite://'.length);
    if (path !== ':memory:') await mkdir(dirname(path), { recursive: true });
    const store = guardStore(new NodeSqliteStore(path), OPERATION_TIMEOUT_MS);
    return new Keyv({ store, namespace, throwOnErrors: true });
  }
  if (/^rediss?:\/\//.test(storeUrl)) {
    const redis = new KeyvRedis(
      {
        url: storeUrl,
        // Fail commands at once while disconnected instead of queueing them until Redis returns.
        disableOfflineQueue: true,
        socket: {
          connectTimeout: OPERATION_TIMEOUT_MS,
          reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 2000),
        },
      },
      { throwOnErrors: true, connectionTimeout: OPERATION_TIMEOUT_MS },
    );
    return new Keyv({
      store: guardStore(redis, OPERATION_TIMEOUT_MS),
      namespace,
      useKeyPrefix: false,
      throwOnErrors: true,
    });
  }
  throw new Error('STORE_URL must start with sqlite:// or redis://');
}
