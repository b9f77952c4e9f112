/**
 * Two shards on one key, sharing Redis: v3's request allowance and its concurrent-job cap hold
 * for both together, so the emulator never answers 429 however many generations each runs.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import {
  openRedis,
  RedisBudgetStore,
  type RedisConnection,
  RedisJobSlots,
} from '../../src/store/index.ts';
import { parseLimits, V3_DEFAULT_LIMITS } from '../../src/tts/index.ts';
import { USER_TWO } from '../../tools/emulator/index.ts';
import { startRedis, type TestRedis } from '../support/redis.ts';
import { count429, sentence } from './emulated.ts';
import { v3ClientsFor, withEmulator } from './v3-emulated.ts';

let redis: TestRedis;
const connections: RedisConnection[] = [];

beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await Promise.allSettled(connections.map((connection) => connection.close()));
  await redis?.stop();
});

// A free plan of 40 requests a (scaled, 600 ms) minute and 3 jobs at once.
const emu = withEmulator({ v3Limits: { free: { perMinute: 40, concurrent: 3 } } });

/** One shard's client for the key: its own process state, budgets and slots in the shared Redis. */
async function shard() {
  const connection = await openRedis(redis.url, (error) => {
    throw error;
  });
  connections.push(connection);
  const limits = parseLimits('request=40/600ms', V3_DEFAULT_LIMITS);
  return v3ClientsFor(emu(), {
    streaming: false,
    concurrentJobs: 3,
    budgets: new RedisBudgetStore(connection, limits, 'test-shards:budget'),
    jobs: new RedisJobSlots(connection, 'test-shards:jobs'),
  }).clients.forKey(USER_TWO.apiKey);
}

test('two shards, six generations each at once: within the cap and the allowance, 0 × 429', async () => {
  const [one, two] = await Promise.all([shard(), shard()]);
  const texts = (label: string) =>
    Array.from({ length: 6 }, (_, i) => ({
      text: `${label} ${i}. ${sentence(40)}`,
      voiceId: 'am_2riuownnf',
      model: 'base' as const,
    }));
  const done = await Promise.all([
    ...texts('One').map((request) => one.generate(request)),
    ...texts('Two').map((request) => two.generate(request)),
  ]);
  expect(new Set(done.map((d) => d.generationId)).size).toBe(12);
  expect(count429(emu())).toBe(0);
});
