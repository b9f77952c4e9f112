/**
 * `npm run start:sharded` end to end: the real ShardingManager with two shard processes, a real
 * redis-server, the fake Discord recommending two shards, and the TTS emulator on the spec's real
 * limits. Two servers on different shards share one API key; 40 `/say` at once must all be
 * delivered exactly once without a single 429 (the budgets are shared through Redis).
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type Emulator, startEmulator, USER_ONE } from '../tools/emulator/index.ts';
import { shardOf } from './fake-discord/gateway.ts';
import { type FakeDiscord, type GuildIds, startFakeDiscord } from './fake-discord/index.ts';
import { metricValue, type NodeProcess, startNode, waitForHttp } from './support/process.ts';
import { freePort, startRedis, type TestRedis } from './support/redis.ts';

let redis: TestRedis;
let emulator: Emulator;
let discord: FakeDiscord;
let dataDir: string;
let manager: NodeProcess | undefined;
let base: string;

beforeAll(async () => {
  [redis, emulator, discord, dataDir] = await Promise.all([
    startRedis(),
    startEmulator({ synth: 'tone' }),
    startFakeDiscord({ shards: 2, guilds: [{ name: 'Shard zero' }, { name: 'Shard one' }] }),
    mkdtemp(join(tmpdir(), 'tts-sharded-')),
  ]);
});
afterAll(async () => {
  await manager?.stop();
  await Promise.allSettled([discord?.close(), emulator?.close(), redis?.stop()]);
  await rm(dataDir, { recursive: true, force: true });
});

function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    DISCORD_TOKEN: discord.token,
    DISCORD_API_URL: discord.apiUrl,
    TTS_API_URL: emulator.baseUrl,
    TTS_MEDIA_ORIGINS: emulator.mediaOrigin,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    NODE_ENV: 'production',
    ...extra,
  };
}

/** Bot processes (manager and shards) still alive with this test's data folder. */
async function botProcesses(): Promise<string[]> {
  const found: string[] = [];
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const environ = await readFile(`/proc/${pid}/environ`, 'utf8');
      if (environ.split('\0').includes(`DATA_DIR=${dataDir}`)) found.push(pid);
    } catch {
      // Gone while we looked, or not ours to read: not one of ours alive.
    }
  }
  return found;
}

function configureKey(guild: GuildIds) {
  return discord
    .slash({ user: 'admin', name: 'config', subcommand: 'api-key', channelId: guild.textChannelId })
    .submitModal({ 'api-key': USER_ONE.apiKey })
    .then((handle) => handle.waitFor((event) => event.kind === 'edit', 20_000));
}

describe('sharded mode', () => {
  test('refuses to start on the SQLite store, saying why', async () => {
    const refused = startNode('src/sharded.ts', env({ SHARD_COUNT: '2' }));
    expect(await refused.exited).toBe(1);
    expect(refused.output()).toContain('Sharded mode needs a shared store: set STORE_URL=redis://');
    expect(refused.output()).toContain('429');
  });

  test('two shards, one key: 40 /say at once, 0 responses 429, each delivered exactly once', async () => {
    const [zero, one] = discord.guilds;
    if (zero === undefined || one === undefined) throw new Error('two guilds expected');
    expect([shardOf(zero.id, 2), shardOf(one.id, 2)]).toEqual([0, 1]);
    base = `http://127.0.0.1:${await freePort()}`;
    manager = startNode(
      'src/sharded.ts',
      env({ STORE_URL: redis.url, HTTP_PORT: base.split(':')[2] ?? '', HTTP_HOST: '127.0.0.1' }),
    );
    const ready = JSON.parse(
      await waitForHttp(`${base}/readyz`, { timeoutMs: 90_000, process: manager }),
    ) as { checks: { name: string; ok: boolean }[] };
    expect(ready.checks.map((check) => check.name)).toEqual([
      'store',
      'shard 0 discord',
      'shard 0 store',
      'shard 1 discord',
      'shard 1 store',
    ]);
    await expect
      .poll(() => discord.commands().global.length, { timeout: 20_000 })
      .toBeGreaterThan(0);
    expect(discord.commands().putCount).toBe(1); // shard 0 only
    for (const guild of [zero, one])
      expect(JSON.stringify(await configureKey(guild))).toContain('checked and saved');
    emulator.reset();

    const says = Array.from({ length: 40 }, (_, i) => {
      const guild = i % 2 === 0 ? zero : one;
      return discord.slash({
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

    const counts = emulator.counts();
    for (const [endpoint, count] of Object.entries(counts)) {
      expect(count.byStatus[429], `429s on ${endpoint}`).toBeUndefined();
    }
    expect(counts['POST /v2/tts']?.total).toBe(40);
    expect(counts['POST /v2/tts']?.byStatus[201]).toBe(40);
    const files = says.map((handle) => handle.files());
    expect(files.every((list) => list.length === 1)).toBe(true);
    const generationIds = new Set(files.map((list) => list[0]?.filename));
    expect(generationIds.size).toBe(40);
    const submitters = new Set(
      emulator.requests.filter((r) => r.endpoint === 'POST /v2/tts').map((r) => r.userId),
    );
    expect(submitters).toEqual(new Set([USER_ONE.userId]));

    // The manager's one endpoint adds up both shards.
    const metrics = await waitForHttp(`${base}/metrics`);
    expect(metricValue(metrics, 'tts_api_requests_total', { endpoint: 'tts', status: '201' })).toBe(
      40,
    );
    expect(metricValue(metrics, 'tts_generations_total', { outcome: 'delivered' })).toBe(40);
    expect(
      metricValue(metrics, 'tts_api_requests_total', { endpoint: 'status', status: '429' }),
    ).toBe(0);
    // Both shards and the manager's own view of them are ready: the lowest is 1.
    expect(metricValue(metrics, 'tts_ready')).toBe(1);
  }, 300_000);

  test('stopping the manager stops every shard process', async () => {
    expect((await botProcesses()).length).toBe(3); // the manager and two shards
    expect(await manager?.stop()).toBe(0);
    await expect.poll(botProcesses, { timeout: 20_000 }).toEqual([]);
  }, 60_000);
});
