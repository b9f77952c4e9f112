/** Learned generation times in the real stores: SQLite across a restart, Redis across shards. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Keyv from 'keyv';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { KeyvLearnedTimesStore, openKeyv } from '../../src/store/index.ts';
import type { LearnedState } from '../../src/tts/index.ts';
import { startRedis, type TestRedis } from '../support/redis.ts';

const learned: LearnedState = {
  base: {
    samples: [
      [40, 1100, 1500],
      [200, 0, 3900],
    ],
    marginMs: 120,
  },
};

describe('KeyvLearnedTimesStore', () => {
  test('SQLite: what one run saved, the next run loads', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'learned-times-'));
    try {
      const first = await openKeyv(`sqlite://${dir}/bot.sqlite`);
      await new KeyvLearnedTimesStore(first).save('0123456789abcdef', learned);
      await first.disconnect();
      const second = await openKeyv(`sqlite://${dir}/bot.sqlite`);
      const store = new KeyvLearnedTimesStore(second);
      expect(await store.load('0123456789abcdef')).toEqual(learned);
      expect(await store.load('fedcba9876543210')).toBeUndefined();
      await second.disconnect();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test.each<[string, unknown]>([
    // Version 1 could hold a stream's sending pace, learned as a generation's time.
    ['version 1, learned before only submitted generations taught', { version: 1, learned }],
    ['a later version', { version: 3, learned }],
    ['not numbers', { version: 2, learned: { base: { samples: [['a', 1, 2]], marginMs: 0 } } }],
    ['not a record', 'garbage'],
  ])('an unreadable record (%s) is nothing learned', async (_name, record) => {
    const keyv = new Keyv();
    await keyv.set('poll-times:0123456789abcdef', record);
    expect(await new KeyvLearnedTimesStore(keyv).load('0123456789abcdef')).toBeUndefined();
  });

  describe('Redis', () => {
    let redis: TestRedis;
    beforeAll(async () => {
      redis = await startRedis();
    });
    afterAll(() => redis?.stop());

    test('shared by shards: one saves, another loads', async () => {
      const [shardA, shardB] = await Promise.all([openKeyv(redis.url), openKeyv(redis.url)]);
      try {
        await new KeyvLearnedTimesStore(shardA).save('0123456789abcdef', learned);
        expect(await new KeyvLearnedTimesStore(shardB).load('0123456789abcdef')).toEqual(learned);
      } finally {
        await Promise.all([shardA.disconnect(), shardB.disconnect()]);
      }
    });
  });
});
