/**
 * Past one machine (issue 20): two `ShardingManager`s, as two hosts would run them, each with its
 * own `SHARD_LIST` of one `SHARD_COUNT=2`, on one Redis and one fake Discord. Servers on both
 * shards share one API key; 40 `/say` at once cross the per-minute generate limit (rate windows
 * a tenth of real on both sides, so a "minute" is 6 s), and the limits must hold across both
 * hosts: 0 responses 429 and every request delivered exactly once.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { USER_ONE } from '../tools/emulator/index.ts';
import { shardOf } from './fake-discord/gateway.ts';
import { metricValue, waitForHttp } from './support/process.ts';
import { type ShardedWorld, startShardedWorld } from './support/sharded-world.ts';

/** The vendor's limits with windows a tenth as long, as the emulator's `timeScale: 0.1` has them. */
const TENTH_LIMITS = 'generate=20/6s+500/8640s,status=60/6s,voices=10/6s,health=100/6s';
const GENERATE_WINDOW_MS = 6000;
const GENERATE_LIMIT = 20;
const SAYS = 40;

let world: ShardedWorld;
beforeAll(async () => {
  world = await startShardedWorld({ emulator: { timeScale: 0.1 } });
});
afterAll(() => world?.close());

test('two managers, one shard each, one key on both shards: 40 /say at once, 0 responses 429, each delivered exactly once', async () => {
  const [zero, one] = world.guilds;
  expect([shardOf(zero.id, 2), shardOf(one.id, 2)]).toEqual([0, 1]);
  // Every host: the same total, the same secret and Redis; its own shard ids.
  const host = {
    SHARD_COUNT: '2',
    SECRET_KEY: 'c0'.repeat(32),
    TTS_LIMITS: TENTH_LIMITS,
  };
  const [first, second] = await Promise.all([
    world.startManager({ ...host, SHARD_LIST: '0' }),
    world.startManager({ ...host, SHARD_LIST: '1' }),
  ]);
  expect(first.checks).toEqual(['store', 'shard 0 discord', 'shard 0 store']);
  expect(second.checks).toEqual(['store', 'shard 1 discord', 'shard 1 store']);
  // The manager and its one shard per host.
  expect((await world.botProcesses()).length).toBe(4);
  await expect
    .poll(() => world.discord.commands().global.length, { timeout: 20_000 })
    .toBeGreaterThan(0);
  expect(world.discord.commands().putCount).toBe(1); // the host running shard 0 only

  for (const guild of [zero, one])
    expect(JSON.stringify(await world.configureKey(guild, USER_ONE.apiKey))).toContain(
      'checked and saved',
    );
  world.emulator.reset();

  const says = Array.from({ length: SAYS }, (_, i) => {
    const guild = i % 2 === 0 ? zero : one;
    return world.discord.slash({
      user: 'member',
      name: 'say',
      channelId: guild.textChannelId,
      options: {
        text: `Message number ${i + 1} of forty, spoken by one of two hosts.`,
        output: 'file',
      },
    });
  });
  await Promise.all(
    says.map((handle) =>
      handle.waitFor((event) => 'files' in event && event.files.length > 0, 180_000),
    ),
  );

  const counts = world.emulator.counts();
  for (const [endpoint, count] of Object.entries(counts))
    expect(count.byStatus[429], `429s on ${endpoint}`).toBeUndefined();
  expect(counts['POST /v2/tts']?.total).toBe(SAYS);
  expect(counts['POST /v2/tts']?.byStatus[201]).toBe(SAYS);
  const submissions = world.emulator.requests.filter((r) => r.endpoint === 'POST /v2/tts');
  expect(new Set(submissions.map((r) => r.userId))).toEqual(new Set([USER_ONE.userId]));
  // The load crossed the limit: more than one window's worth, and no window held more.
  expect(SAYS).toBeGreaterThan(GENERATE_LIMIT);
  expect(
    mostInAnyWindow(
      submissions.map((r) => r.at),
      GENERATE_WINDOW_MS,
    ),
  ).toBeLessThanOrEqual(GENERATE_LIMIT);

  const files = says.map((handle) => handle.files());
  expect(files.every((list) => list.length === 1)).toBe(true);
  expect(new Set(files.map((list) => list[0]?.filename)).size).toBe(SAYS);

  // Each host delivered its own servers' half, through its own endpoint.
  for (const manager of [first, second]) {
    const metrics = await waitForHttp(`${manager.base}/metrics`);
    expect(metricValue(metrics, 'tts_generations_total', { outcome: 'delivered' })).toBe(SAYS / 2);
    expect(metricValue(metrics, 'tts_ready')).toBe(1);
  }

  expect(await first.process.stop()).toBe(0);
  expect(await second.process.stop()).toBe(0);
  await expect.poll(() => world.botProcesses(), { timeout: 20_000 }).toEqual([]);
}, 300_000);

/** The most timestamps that fall within one window of `windowMs` (a window closed at both ends). */
function mostInAnyWindow(times: readonly number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  let start = 0;
  for (const [end, time] of sorted.entries()) {
    while ((sorted[start] ?? time) < time - windowMs) start++;
    most = Math.max(most, end - start + 1);
  }
  return most;
}
