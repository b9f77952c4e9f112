/** `npm start` with HTTP_PORT, as a process: the endpoint answers, and SHARD_COUNT is ignored with a warning. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type Emulator, startEmulator } from '../../tools/emulator/index.ts';
import { type FakeDiscord, startFakeDiscord } from '../fake-discord/index.ts';
import { metricValue, type NodeProcess, startNode, waitForHttp } from '../support/process.ts';
import { freePort } from '../support/redis.ts';

let discord: FakeDiscord;
let emulator: Emulator;
let dataDir: string;
let bot: NodeProcess | undefined;

beforeAll(async () => {
  [discord, emulator, dataDir] = await Promise.all([
    startFakeDiscord({ guilds: [{}, {}] }),
    startEmulator({ synth: 'tone' }),
    mkdtemp(join(tmpdir(), 'tts-endpoint-')),
  ]);
});
afterAll(async () => {
  await bot?.stop();
  await Promise.allSettled([discord?.close(), emulator?.close()]);
  await rm(dataDir, { recursive: true, force: true });
});

test('HTTP_PORT serves /healthz, /readyz and /metrics; one process sees every guild whatever SHARD_COUNT says', async () => {
  const port = await freePort();
  bot = startNode('src/main.ts', {
    DISCORD_TOKEN: discord.token,
    DISCORD_API_URL: discord.apiUrl,
    TTS_API_URL: emulator.baseUrl,
    TTS_MEDIA_ORIGINS: emulator.mediaOrigin,
    DATA_DIR: dataDir,
    HTTP_PORT: String(port),
    HTTP_HOST: '127.0.0.1',
    SHARD_COUNT: '2',
    SHARD_LIST: '1',
    NODE_ENV: 'production',
  });
  const base = `http://127.0.0.1:${port}`;
  const ready = JSON.parse(
    await waitForHttp(`${base}/readyz`, { timeoutMs: 45_000, process: bot }),
  );
  expect(ready.ready).toBe(true);
  expect(await waitForHttp(`${base}/healthz`)).toBe('ok\n');
  const metrics = await waitForHttp(`${base}/metrics`);
  expect(metricValue(metrics, 'tts_generations_total', { outcome: 'delivered' })).toBe(0);
  expect(metrics).toMatch(/^# TYPE tts_notice_lag_seconds histogram$/m);
  expect(bot.output()).toContain(
    'SHARD_COUNT and SHARD_LIST are for `npm run start:sharded`; ignored here',
  );
  expect(bot.output()).toMatch(/"guilds":2/);
  expect(await bot.stop()).toBe(0);
}, 90_000);
