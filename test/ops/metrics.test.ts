/**
 * The bot's metrics, scraped from its operations endpoint after real traffic against the
 * emulator: every request counter matches what the emulator saw, generations are counted by
 * outcome (file and voice), notice lags are observed, and the voice gauges follow the session.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  aggregate,
  expose,
  type OpsServer,
  PrometheusMetrics,
  startOpsServer,
} from '../../src/ops/index.ts';
import { type EndpointName, USER_ONE } from '../../tools/emulator/index.ts';
import { api } from '../support/api-under-test.ts';
import { startTestBot, type TestBot } from '../support/bot-harness.ts';
import { metricValue, waitForHttp } from '../support/process.ts';
import { sentence } from '../tts/emulated.ts';
import { eventually } from '../voice/support.ts';

let t: TestBot;
let http: OpsServer;
let base: string;
const metrics = new PrometheusMetrics();

beforeAll(async () => {
  t = await startTestBot({ metrics, env: { TTS_CACHE_TTL: '1h' } });
  // The same probes as src/main.ts gives its endpoint.
  http = await startOpsServer({
    port: 0,
    host: '127.0.0.1',
    logger: t.bot.services.logger,
    probes: { ready: () => t.bot.ready(), metrics: () => expose(metrics.registry) },
  });
  base = `http://127.0.0.1:${http.port}`;
  await t.configureKey(USER_ONE.apiKey);
});
afterAll(async () => {
  await http?.close();
  await t?.stop();
});

const scrape = () => waitForHttp(`${base}/metrics`);

function say(options: Record<string, string>, user = 'member') {
  return t.discord.slash({ user, name: 'say', options });
}

/** Sum of every sample of `name` whose labels include `labels`. */
function total(text: string, name: string, labels: Record<string, string>): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    if (Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`))) {
      sum += Number(line.split(' ').at(-1));
    }
  }
  return sum;
}

/** The bot's endpoint labels and the emulator's endpoints of the API version under test. */
const ENDPOINTS: [string, EndpointName][] = [
  ['tts', api.submit],
  ['status', api.status],
  ['voices', api.voices],
  ['media', 'GET /audio'],
];

describe('metrics', () => {
  test('/healthz is up and /readyz checks Discord and the store', async () => {
    expect(await waitForHttp(`${base}/healthz`)).toBe('ok\n');
    const ready = JSON.parse(await waitForHttp(`${base}/readyz`));
    expect(ready).toEqual({
      ready: true,
      checks: [
        { name: 'discord', ok: true },
        { name: 'store', ok: true },
      ],
    });
    // The same checks as a gauge, for alerts (src/bot.ts watches them).
    expect(await scrape()).toMatch(/^tts_ready 1$/m);
  });

  test('file generations: counters match the emulator, outcomes and notice lags are counted', async () => {
    const files = [1, 2, 3].map((n) => say({ text: sentence(40 + n), output: 'file' }));
    await Promise.all(
      files.map((handle) =>
        handle.waitFor((event) => 'files' in event && event.files.length > 0, 20_000),
      ),
    );
    t.emulator.fault({ kind: 'fail', error: 'synthesis crashed' });
    const failing = say({ text: sentence(45), output: 'file' });
    await failing.waitFor((event) => JSON.stringify(event).includes('synthesis crashed'), 20_000);

    const text = await scrape();
    const counts = t.emulator.counts();
    for (const [endpoint, name] of ENDPOINTS) {
      const seen = counts[name]?.byStatus ?? {};
      for (const [status, count] of Object.entries(seen)) {
        expect(
          metricValue(text, 'tts_api_requests_total', { endpoint, status }),
          `${endpoint} ${status}`,
        ).toBe(count);
      }
      expect(total(text, 'tts_api_requests_total', { endpoint }), endpoint).toBe(
        counts[name]?.total ?? 0,
      );
    }
    expect(counts[api.submit]?.total).toBe(4);
    expect(metricValue(text, 'tts_generations_total', { outcome: 'delivered' })).toBe(3);
    expect(metricValue(text, 'tts_generations_total', { outcome: 'failed' })).toBe(1);
    expect(metricValue(text, 'tts_generations_total', { outcome: 'cancelled' })).toBe(0);
    expect(metricValue(text, 'tts_generations_total', { outcome: 'cached' })).toBe(0);
    expect(metricValue(text, 'tts_cache_hits_total')).toBe(0);
    // One observation per generation that completed; its lag is bounded by the poll interval.
    expect(metricValue(text, 'tts_notice_lag_seconds_count')).toBe(3);
    expect(metricValue(text, 'tts_notice_lag_seconds_sum')).toBeLessThanOrEqual(3 * 2);
    expect(metricValue(text, 'tts_notice_lag_seconds_bucket', { le: '+Inf' })).toBe(3);
    // prom-client's default process metrics.
    expect(text).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes \d/m);
  });

  test('the same speech again comes from the cache: counted as cached and as a cache hit, nothing submitted', async () => {
    const before = await scrape();
    const posts = t.emulator.counts()[api.submit]?.total ?? 0;
    for (let i = 0; i < 2; i++) {
      await say({ text: sentence(47), output: 'file' }).waitFor(
        (event) => 'files' in event && event.files.length > 0,
        20_000,
      );
    }
    const after = await scrape();
    expect(t.emulator.counts()[api.submit]?.total).toBe(posts + 1);
    expect(
      metricValue(after, 'tts_cache_hits_total') - metricValue(before, 'tts_cache_hits_total'),
    ).toBe(1);
    const delta = (outcome: string) =>
      metricValue(after, 'tts_generations_total', { outcome }) -
      metricValue(before, 'tts_generations_total', { outcome });
    expect([delta('delivered'), delta('cached')]).toEqual([1, 1]);
  });

  test('voice: the gauges follow the session, played items are delivered and skipped ones cancelled', async () => {
    const before = await scrape();
    t.discord.moveMember({ userId: 'member', channelId: t.discord.guild.voiceChannelId });
    await eventually('the bot sees the member', () => t.discord.voiceStates().length === 1);
    await t.discord.slash({ user: 'member', name: 'join' }).waitForReply(15_000);
    expect(metricValue(await scrape(), 'tts_voice_connections')).toBe(1);

    const long = say({ text: sentence(400), output: 'voice' });
    const queued = say({ text: sentence(40), output: 'voice' });
    await long.waitFor(
      (event) => event.kind === 'edit' && /Playing now/.test(JSON.stringify(event)),
      20_000,
    );
    expect(metricValue(await scrape(), 'tts_queue_items')).toBe(2);
    await t.discord.slash({ user: 'member', name: 'skip' }).waitForReply(15_000);
    await queued.waitFor(
      (event) => event.kind === 'edit' && /Played/.test(JSON.stringify(event)),
      30_000,
    );

    const after = await scrape();
    const delta = (outcome: string) =>
      metricValue(after, 'tts_generations_total', { outcome }) -
      metricValue(before, 'tts_generations_total', { outcome });
    expect(delta('delivered')).toBe(1);
    expect(delta('cancelled')).toBe(1);
    expect(delta('failed')).toBe(0);
    expect(metricValue(after, 'tts_queue_items')).toBe(0);
    // Voice speech streams with v3: each stream counted as the emulator saw it (v2: none).
    expect(total(after, 'tts_api_requests_total', { endpoint: 'stream' })).toBe(
      t.emulator.counts()['WS /v3/tts/stream']?.total ?? 0,
    );
    await t.discord.slash({ user: 'member', name: 'leave' }).waitForReply(15_000);
    await expect
      .poll(async () => metricValue(await scrape(), 'tts_voice_connections'), { timeout: 10_000 })
      .toBe(0);
  });
});

test('aggregate adds up the counters, histograms and gauges of several processes', async () => {
  const shards = [new PrometheusMetrics(), new PrometheusMetrics()];
  shards[0]?.apiRequest('tts', 201);
  shards[1]?.apiRequest('tts', 201);
  shards[1]?.apiRequest('status', 200);
  shards[0]?.generation('delivered');
  shards[1]?.noticeLag(0.4);
  shards[0]?.watch({ queueItems: () => 2, voiceConnections: () => 1 });
  shards[1]?.watch({ queueItems: () => 3, voiceConnections: () => 1 });
  const { body, contentType } = await aggregate(await Promise.all(shards.map((s) => s.json())));
  expect(contentType).toMatch(/^text\/plain/);
  expect(metricValue(body, 'tts_api_requests_total', { endpoint: 'tts', status: '201' })).toBe(2);
  expect(metricValue(body, 'tts_api_requests_total', { endpoint: 'status', status: '200' })).toBe(
    1,
  );
  expect(metricValue(body, 'tts_generations_total', { outcome: 'delivered' })).toBe(1);
  expect(metricValue(body, 'tts_notice_lag_seconds_count')).toBe(1);
  expect(metricValue(body, 'tts_queue_items')).toBe(5);
  expect(metricValue(body, 'tts_voice_connections')).toBe(2);
  expect(body).toMatch(/^process_cpu_user_seconds_total \d/m);
});

describe('tts_ready', () => {
  const scrapeOf = async (metrics: PrometheusMetrics) => (await expose(metrics.registry)).body;

  test('is absent until readiness is watched, then follows every check at each scrape', async () => {
    const metrics = new PrometheusMetrics({ defaultMetrics: false });
    expect(await scrapeOf(metrics)).not.toContain('tts_ready');
    let checks = [{ ok: true }, { ok: true }];
    metrics.watchReadiness(async () => checks);
    expect(await scrapeOf(metrics)).toMatch(/^tts_ready 1$/m);
    checks = [{ ok: true }, { ok: false }];
    expect(await scrapeOf(metrics)).toMatch(/^tts_ready 0$/m);
    metrics.watchReadiness(() => Promise.reject(new Error('probe broke')));
    expect(await scrapeOf(metrics)).toMatch(/^tts_ready 0$/m);
  });

  test('across processes the lowest wins: one shard not ready makes the bot not ready', async () => {
    const shards = [true, false, true].map((ok) => {
      const metrics = new PrometheusMetrics({ defaultMetrics: false });
      metrics.watchReadiness(async () => [{ ok }]);
      return metrics;
    });
    const { body } = await aggregate(await Promise.all(shards.map((s) => s.json())));
    expect(body).toMatch(/^tts_ready 0$/m);
  });
});
