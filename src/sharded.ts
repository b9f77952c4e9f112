/**
 * Entry point of `npm run start:sharded`: a discord.js ShardingManager that
 * runs SHARD_COUNT bot processes (each `src/main.ts`) sharing Redis, and the
 * one operations endpoint (HTTP_PORT) for all of them.
 */
import { parseConfigOrExit } from './config/index.ts';
import { createLogger, logStartFailure } from './log/index.ts';
import { ShardingRefused, startShardManager } from './sharding/manager.ts';

const config = parseConfigOrExit(process.env);

const logger = createLogger({ level: config.logLevel, pretty: config.prettyLogs }).child({
  role: 'shard-manager',
});
try {
  const bot = await startShardManager(config, { logger });
  const shutdown = (signal: string) => {
    logger.info({ signal }, 'stopping every shard');
    bot.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
} catch (error) {
  if (error instanceof ShardingRefused) {
    process.stderr.write(`${error.message}\n`);
  } else {
    logStartFailure(logger, error, 'sharding failed');
    logger.flush();
  }
  process.exitCode = 1;
  setTimeout(() => process.exit(1), 5000).unref();
}
