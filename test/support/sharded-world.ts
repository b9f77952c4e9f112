/**
 * Sharded mode end to end (`npm run start:sharded`): a real redis-server, the local stack's
 * servers with a fake Discord recommending two shards (guild `i` on shard `i % 2`), and the real
 * ShardingManager as a child process with its operations endpoint.
 */
import { readdir, readFile } from 'node:fs/promises';
import { type EmulatorOptions, USER_ONE } from '../../tools/emulator/index.ts';
import { type StackServers, startStackServers } from '../../tools/local-stack/index.ts';
import type { GuildIds } from '../fake-discord/index.ts';
import { api } from './api-under-test.ts';
import { type NodeProcess, startNode, waitForHttp } from './process.ts';
import { freePort, startRedis, type TestRedis } from './redis.ts';

/** A running shard manager (`src/sharded.ts`) and the address of its endpoint. */
export interface ShardManager {
  readonly process: NodeProcess;
  /** `http://127.0.0.1:PORT` of its operations endpoint. */
  readonly base: string;
  /** The names of the checks `/readyz` answered with once ready. */
  readonly checks: string[];
}

/** Redis, the servers and a way to run the shard manager against them. */
export interface ShardedWorld extends StackServers {
  readonly redis: TestRedis;
  /** The two guilds: the first on shard 0, the second on shard 1. */
  readonly guilds: readonly [GuildIds, GuildIds];
  /** Starts the manager on Redis (`env` added) and resolves once `/readyz` answers 200. */
  startManager(env?: Record<string, string>): Promise<ShardManager>;
  /** `/config api-key` in a guild as its admin; resolves with the reply's edit. */
  configureKey(guild: GuildIds, apiKey: string): Promise<unknown>;
  /** Pids of bot processes (manager and shards) still alive with this world's data folder. */
  botProcesses(): Promise<string[]>;
  /** Stops every manager started (SIGTERM), the servers and Redis. */
  close(): Promise<void>;
}

/** Starts Redis and the servers for two shards with one guild each. */
export async function startShardedWorld(
  options: { emulator?: EmulatorOptions } = {},
): Promise<ShardedWorld> {
  const [redis, servers] = await Promise.all([
    startRedis(),
    startStackServers({
      discord: { shards: 2, guilds: [{ name: 'Shard zero' }, { name: 'Shard one' }] },
      ...(options.emulator === undefined ? {} : { emulator: options.emulator }),
    }),
  ]);
  const [zero, one] = servers.discord.guilds;
  if (zero === undefined || one === undefined) throw new Error('two guilds expected');
  const managers: NodeProcess[] = [];
  // The API version of this test run (see api-under-test.ts), for the paid plan of USER_ONE,
  // whose key the tests configure.
  const apiEnv = {
    ...servers.env,
    ...api.env(servers.emulator),
    ...api.planEnv(servers.emulator, USER_ONE.plan),
  };
  return {
    ...servers,
    env: apiEnv,
    redis,
    guilds: [zero, one],
    async startManager(env = {}) {
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      const process = startNode('src/sharded.ts', {
        ...apiEnv,
        STORE_URL: redis.url,
        HTTP_PORT: String(port),
        HTTP_HOST: '127.0.0.1',
        ...env,
      });
      managers.push(process);
      const ready = JSON.parse(await waitForHttp(`${base}/readyz`, { timeoutMs: 90_000, process }));
      const checks = (ready as { checks: { name: string }[] }).checks.map((check) => check.name);
      return { process, base, checks };
    },
    configureKey(guild, apiKey) {
      return servers.discord
        .slash({
          user: 'admin',
          name: 'config',
          subcommand: 'api-key',
          channelId: guild.textChannelId,
        })
        .submitModal({ 'api-key': apiKey })
        .then((handle) => handle.waitFor((event) => event.kind === 'edit', 20_000));
    },
    async botProcesses() {
      const found: string[] = [];
      for (const pid of await readdir('/proc')) {
        if (!/^\d+$/.test(pid)) continue;
        // Gone while we looked, or not ours to read: not one of ours alive.
        const environ = await readFile(`/proc/${pid}/environ`, 'utf8').catch(() => '');
        if (environ.split('\0').includes(`DATA_DIR=${servers.dataDir}`)) found.push(pid);
      }
      return found;
    },
    async close() {
      for (const manager of managers) await manager.stop();
      await servers.stop();
      await redis.stop();
    },
  };
}
