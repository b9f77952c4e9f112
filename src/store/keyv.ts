import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import KeyvRedis from '@keyv/redis';
import Keyv from 'keyv';
import { NodeSqliteStore } from './sqlite.ts';

/**
 * Opens the key-value store named by `STORE_URL`: `sqlite://path` (the
 * embedded default, on `node:sqlite`; its folder is created) or `redis://host:port`. Store
 * failures throw: a lost write must never be reported as saved.
 */
export async function openKeyv(storeUrl: string, namespace = 'tts-bot'): Promise<Keyv> {
  if (storeUrl.startsWith('sqlite://')) {
    const path = storeUrl.slice('sqlite://'.length);
    if (path !== ':memory:') await mkdir(dirname(path), { recursive: true });
    return new Keyv({ store: new NodeSqliteStore(path), namespace, throwOnErrors: true });
  }
  if (/^rediss?:\/\//.test(storeUrl)) {
    return new Keyv({
      store: new KeyvRedis(storeUrl),
      namespace,
      useKeyPrefix: false,
      throwOnErrors: true,
    });
  }
  throw new Error('STORE_URL must start with sqlite:// or redis://');
}
