/**
 * `npm run start:sharded` end to end: the real ShardingManager with two shard processes, a real
 * redis-server, the fake Discord recommending two shards, and the TTS emulator. Two servers on
 * different shards share one API key; 40 `/say` at once cross the key's per-minute allowance
 * (v2: 20 submissions; v3: requests of every kind and its concurrent-job cap; see
 * `tenthCrossing`) and must all be delivered exactly once without a single 429 (the budgets are
 * shared through Redis). The rate windows are a tenth of real on both sides (the emulator's
 * `timeScale: 0.1`, the bot's `TTS_LIMITS`, which is how an operator gives the bot its key's
 * limits: the API does not announce them), so a "minute" is 6 s and the crossing takes seconds,
 * not the two minutes 40 at 20 a minute take on the real windows.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { USER_ONE } from '../tools/emulator/index.ts';
import { shardOf } from './fake-discord/gateway.ts';
import { api, expectAllowanceKept } from './support/api-under-test.ts';
import { metricValue, startNode, waitForHttp } from './support/process.ts';
import {
  type ShardedWorld,
  type ShardManager,
  startShardedWorld,
} from './support/sharded-world.ts';

const SAYS = 40;

let world: ShardedWorld;
let manager: ShardManager | undefined;

beforeAll(async () => {
  world = await startShardedWorld({ emulator: api.tenthCrossing.emulator });
});
afterAll(() => world?.close());

describe('sharded mode', () => {
  test('refuses to start on the SQLite store, saying why', async () => {
    const refused = startNode('src/sharded.ts', { ...world.env, SHARD_COUNT: '2' });
    expect(await refused.exited).toBe(1);
    expect(refused.output()).toContain('Sharded mode needs a shared store: set STORE_URL=redis://');
    expect(refused.output()).toContain('429');
  });

  test('two shards, one key: 40 /say at once, 0 responses 429, each delivered exactly once', async () => {
    const [zero, one] = world.guilds;
    expect([shardOf(zero.id, 2), shardOf(one.id, 2)]).toEqual([0, 1]);
    manager = await world.startManager({ ...api.tenthCrossing.env });
    expect(manager.checks).toEqual([
      'store',
      'shard 0 discord',
      'shard 0 store',
      'shard 1 discord',
      'shard 1 store',
    ]);
    await expect
      .poll(() => world.discord.commands().global.length, { timeout: 20_000 })
      .toBeGreaterThan(0);
    expect(world.discord.commands().putCount).toBe(1); // shard 0 only
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
          text: `Message number ${i + 1} of forty, spoken by the sharded bot.`,
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
    for (const [endpoint, count] of Object.entries(counts)) {
      expect(count.byStatus[429], `429s on ${endpoint}`).toBeUndefined();
    }
    const submissions = api.submissions(world.emulator);
    expect(submissions).toHaveLength(40);
    expect(submissions.filter((entry) => api.accepted(entry))).toHaveLength(40);
    // The load crossed the allowance: more than one window's worth, and no window held more
    // (with v3: no moment held more of the key's generations than the bot's concurrent-job cap).
    expectAllowanceKept(world.emulator, USER_ONE.userId, SAYS);
    const files = says.map((handle) => handle.files());
    expect(files.every((list) => list.length === 1)).toBe(true);
    const generationIds = new Set(files.map((list) => list[0]?.filename));
    expect(generationIds.size).toBe(40);
    const submitters = new Set(submissions.map((r) => r.userId));
    expect(submitters).toEqual(new Set([USER_ONE.userId]));

    // The manager's one endpoint adds up both shards.
    const metrics = await waitForHttp(`${manager.base}/metrics`);
    expect(
      metricValue(metrics, 'tts_api_requests_total', {
        endpoint: 'tts',
        status: String(api.acceptedStatus),
      }),
    ).toBe(40);
    expect(metricValue(metrics, 'tts_generations_total', { outcome: 'delivered' })).toBe(40);
    expect(
      metricValue(metrics, 'tts_api_requests_total', { endpoint: 'status', status: '429' }),
    ).toBe(0);
    // Both shards and the manager's own view of them are ready: the lowest is 1.
    expect(metricValue(metrics, 'tts_ready')).toBe(1);
  }, 300_000);

  test('stopping the manager stops every shard process', async () => {
    expect((await world.botProcesses()).length).toBe(3); // the manager and two shards
    expect(await manager?.process.stop()).toBe(0);
    await expect.poll(() => world.botProcesses(), { timeout: 20_000 }).toEqual([]);
  }, 60_000);
});
