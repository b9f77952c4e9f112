/**
 * Past one machine (issue 20): two `ShardingManager`s, as two hosts would run them, each with its
 * own `SHARD_LIST` of one `SHARD_COUNT=2`, on one Redis and one fake Discord. Servers on both
 * shards share one API key; 40 `/say` at once cross the key's per-minute allowance (v2: 20
 * submissions; v3: requests of every kind, polls included, and its concurrent-job cap; see
 * `tenthCrossing`), with rate windows a tenth of real on both sides, so a "minute" is 6 s. The
 * limits must hold across both hosts: 0 responses 429 and every request delivered exactly once.
 *
 * Kept apart from sharded.test.ts on purpose: sharing its servers saves ~1 s (they start in
 * ~0.2 s; the time is in the managers and shards, which differ), and on one Redis this layout
 * would find the commands' hash the other stored and register nothing, so "only the host of
 * shard 0 registers the commands" could not be checked.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { USER_ONE } from '../tools/emulator/index.ts';
import { shardOf } from './fake-discord/gateway.ts';
import { api, expectAllowanceKept } from './support/api-under-test.ts';
import { metricValue, waitForHttp } from './support/process.ts';
import { type ShardedWorld, startShardedWorld } from './support/sharded-world.ts';

const SAYS = 40;

let world: ShardedWorld;
beforeAll(async () => {
  world = await startShardedWorld({ emulator: api.tenthCrossing.emulator });
});
afterAll(() => world?.close());

test('two managers, one shard each, one key on both shards: 40 /say at once, 0 responses 429, each delivered exactly once', async () => {
  const [zero, one] = world.guilds;
  expect([shardOf(zero.id, 2), shardOf(one.id, 2)]).toEqual([0, 1]);
  // Every host: the same total, the same secret and Redis; its own shard ids.
  const host = {
    SHARD_COUNT: '2',
    SECRET_KEY: 'c0'.repeat(32),
    ...api.tenthCrossing.env,
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
  const submissions = api.submissions(world.emulator);
  expect(submissions).toHaveLength(SAYS);
  expect(submissions.every(api.accepted)).toBe(true);
  expect(new Set(submissions.map((r) => r.userId))).toEqual(new Set([USER_ONE.userId]));
  // The load crossed the allowance: more than one window's worth, and no window held more
  // (with v3: no moment held more of the key's generations than the bot's concurrent-job cap).
  expectAllowanceKept(world.emulator, USER_ONE.userId, SAYS);

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
