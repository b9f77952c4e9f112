import { fileURLToPath } from 'node:url';
import { type Shard, ShardingManager } from 'discord.js';
import type { Config } from '../config/index.ts';
import type { Logger } from '../log/index.ts';
import {
  aggregate,
  type Check,
  type OpsServer,
  PrometheusMetrics,
  startOpsServer,
  timedCheck,
} from '../ops/index.ts';
import { loadSecretKey, openRedis, type RedisConnection } from '../store/index.ts';
import { askShard, type IpcPort } from './ipc.ts';
import { shardCountFrom, shardingRefusal } from './plan.ts';

/** The script each shard process runs: the ordinary bot entry point. */
const SHARD_SCRIPT = fileURLToPath(new URL('../main.ts', import.meta.url));
const ASK_TIMEOUT_MS = 3000;

/** A running shard manager. */
export interface ShardedBot {
  readonly manager: ShardingManager;
  /** The operations endpoint, when HTTP_PORT is set. */
  readonly http: OpsServer | undefined;
  /** Stops the endpoint, then every shard (each leaves voice and closes its store), then Redis. */
  stop(): Promise<void>;
}

/** Sharded mode cannot run on this configuration; the message says why. */
export class ShardingRefused extends Error {
  override readonly name = 'ShardingRefused';
}

/**
 * Runs the bot as discord.js shards, one process each, sharing budgets,
 * settings and everything else through Redis. The manager serves the one
 * operations endpoint of the whole bot, aggregating its shards' metrics.
 */
export async function startShardManager(
  config: Config,
  options: { logger: Logger; spawnDelayMs?: number; readyTimeoutMs?: number },
): Promise<ShardedBot> {
  const { logger } = options;
  const refusal = shardingRefusal(config.storeUrl);
  if (refusal !== undefined) throw new ShardingRefused(refusal);
  // Created here, once, so shards starting together do not each generate a different key.
  await loadSecretKey(config.secretKey, config.dataDir, logger);
  const redis = await openRedis(config.storeUrl, (error) =>
    logger.warn({ err: error }, 'Redis connection error'),
  );
  let http: OpsServer | undefined;
  let manager: ShardingManager | undefined;
  try {
    const totalShards = shardCountFrom(
      config.shardCount,
      config.shardCount === 'auto' ? await fetchGatewayBot(config) : undefined,
    );
    // Past one machine, each host's manager runs its own SHARD_LIST of the one total.
    const shardIds = config.shardList ?? Array.from({ length: totalShards }, (_, id) => id);
    manager = new ShardingManager(SHARD_SCRIPT, {
      totalShards,
      shardList: [...shardIds],
      token: config.discordToken,
      mode: 'process',
      respawn: true,
      // As `npm start` runs one bot process (a smaller young generation: less memory per shard).
      execArgv: ['--max-semi-space-size=8'],
    });
    const shards = manager;
    manager.on('shardCreate', (shard) => watchShard(shard, logger));
    if (config.httpPort !== undefined) {
      const metrics = new PrometheusMetrics();
      const ready = () => readiness(shards, shardIds, redis);
      // Shards not started or not answering count too: the aggregate `tts_ready` is the lowest.
      metrics.watchReadiness(ready);
      http = await startOpsServer({
        port: config.httpPort,
        host: config.httpHost,
        logger,
        probes: {
          ready,
          metrics: async () =>
            aggregate([await metrics.json(), ...(await shardMetrics(shards, logger))]),
        },
      });
    }
    logger.info({ shards: totalShards, here: shardIds }, 'spawning shards');
    await manager.spawn({
      amount: totalShards,
      delay: options.spawnDelayMs ?? 5500,
      timeout: options.readyTimeoutMs ?? 60_000,
    });
    logger.info({ shards: totalShards, here: shardIds }, 'every shard of this host is ready');
    let stopping: Promise<void> | undefined;
    const server = http;
    const stop = () => {
      stopping ??= (async () => {
        await server?.close();
        await Promise.all(shards.shards.map((shard) => stopShard(shard)));
        await redis.close();
      })();
      return stopping;
    };
    return { manager, http, stop };
  } catch (error) {
    // Shards already started (a later one failed to become ready) stop with the manager.
    await Promise.all(manager?.shards.map((shard) => stopShard(shard)) ?? []);
    await http?.close();
    await redis.close();
    throw error;
  }
}

/** GET /gateway/bot from the configured Discord API (discord.js's own helper only asks discord.com). */
async function fetchGatewayBot(config: Config): Promise<unknown> {
  const base = (config.discordApiUrl ?? 'https://discord.com/api').replace(/\/+$/, '');
  const response = await fetch(`${base}/v10/gateway/bot`, {
    headers: { authorization: `Bot ${config.discordToken}` },
    signal: AbortSignal.timeout(15_000),
  });
  if (response.status === 401)
    throw new Error(
      "Discord refused the token: set DISCORD_TOKEN to your application's bot token (Discord Developer Portal → your application → Bot → Reset Token)",
    );
  if (!response.ok) throw new Error(`GET /gateway/bot answered HTTP ${response.status}`);
  return response.json();
}

function watchShard(shard: Shard, logger: Logger): void {
  const log = logger.child({ shard: shard.id });
  shard.on('spawn', () => log.info('shard process started'));
  shard.on('death', () => log.warn('shard process exited'));
  shard.on('error', (error) => log.error({ err: error }, 'shard error'));
}

/** Each of this host's shards' own checks (Discord ready, store reachable), and Redis as the manager sees it. */
async function readiness(
  manager: ShardingManager,
  shardIds: readonly number[],
  redis: RedisConnection,
): Promise<Check[]> {
  const checks: Check[] = [await timedCheck('store', () => redis.ping())];
  for (const id of shardIds) {
    const shard = manager.shards.get(id);
    if (shard === undefined) {
      checks.push({ name: `shard ${id}`, ok: false, detail: 'not started' });
      continue;
    }
    try {
      const answer = (await askShard(port(shard), 'ready', ASK_TIMEOUT_MS)) as Check[];
      for (const check of answer) checks.push({ ...check, name: `shard ${id} ${check.name}` });
    } catch (error) {
      checks.push({ name: `shard ${id}`, ok: false, detail: (error as Error).message });
    }
  }
  return checks;
}

/** The metrics of every shard that answers; a shard that is down is left out of this scrape. */
async function shardMetrics(manager: ShardingManager, logger: Logger): Promise<object[][]> {
  const answers = await Promise.allSettled(
    manager.shards.map((shard) => askShard(port(shard), 'metrics', ASK_TIMEOUT_MS)),
  );
  const parts: object[][] = [];
  for (const answer of answers) {
    if (answer.status === 'fulfilled') parts.push(answer.value as object[]);
    else logger.warn({ err: answer.reason }, 'a shard gave no metrics');
  }
  return parts;
}

function port(shard: Shard): IpcPort {
  return {
    send: (message) => shard.send(message),
    on: (event, listener) => shard.on(event, listener),
    off: (event, listener) => shard.off(event, listener),
  };
}

/** Asks a shard process to stop (SIGTERM: it leaves voice and closes its store), SIGKILL after 15 s. */
async function stopShard(shard: Shard): Promise<void> {
  const child = shard.process;
  if (child === null || child.exitCode !== null || child.signalCode !== null) {
    shard.kill();
    return;
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  shard.kill(); // no respawn; SIGTERM
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}
