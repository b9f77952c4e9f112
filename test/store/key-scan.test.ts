import { randomUUID } from 'node:crypto';
import Keyv from 'keyv';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { deleteKeysUnder, keysUnder, openKeyv } from '../../src/store/index.ts';
import { startRedis, type TestRedis } from '../support/redis.ts';

let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});

const STORED = [
  'usage:1:2026-05-10',
  'usage:1:2026-05-11',
  'usage:12:2026-05-10',
  'USAGE:1:2026-05-10',
  'preview:a*b:base:v',
  'preview:axb:base:v',
  'guild:1',
];

describe.each<[string, () => Promise<Keyv>]>([
  ['SQLite', () => openKeyv('sqlite://:memory:')],
  ['Redis', () => openKeyv(redis.url, `scan-${randomUUID()}`)],
  ['memory', async () => new Keyv()],
])('keysUnder on %s', (_, open) => {
  test('lists exactly the keys under a prefix (no other server, case or glob), deletes them', async () => {
    const keyv = await open();
    try {
      for (const key of STORED) await keyv.set(key, { key });
      expect((await keysUnder(keyv, 'usage:1:')).sort()).toEqual([
        'usage:1:2026-05-10',
        'usage:1:2026-05-11',
      ]);
      expect(await keysUnder(keyv, 'preview:a*b:')).toEqual(['preview:a*b:base:v']);
      expect(await keysUnder(keyv, 'speech:')).toEqual([]);
      expect((await keysUnder(keyv, '')).sort()).toEqual([...STORED].sort());
      expect(await deleteKeysUnder(keyv, 'usage:1:')).toBe(2);
      expect(await keyv.get('usage:1:2026-05-10')).toBeUndefined();
      expect(await keyv.get('usage:12:2026-05-10')).toEqual({ key: 'usage:12:2026-05-10' });
      expect((await keysUnder(keyv, '')).length).toBe(STORED.length - 2);
    } finally {
      await keyv.disconnect();
    }
  });
});
