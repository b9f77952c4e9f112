/**
 * Entry point of one bot process: `npm start`, or one shard under
 * `npm run start:sharded` (discord.js sets SHARDING_MANAGER in its children).
 */
import { startBot } from './bot.ts';
import { parseConfigOrExit } from './config/index.ts';
import { createLogger, logStartFailure } from './log/index.ts';
import { expose, type OpsServer, PrometheusMetrics, startOpsServer } from './ops/index.ts';
import { answerManager } from './sharding/ipc.ts';
import { installVoiceCrashGuard } from './voice/index.ts';

/** Longest graceful shutdown before the process exits anyway (below the usual 10 s kill). */
const SHUTDOWN_LIMIT_MS = 8000;

const underManager = process.env.SHARDING_MANAGER !== undefined;
const ignoredShardCount =
  !underManager && (process.env.SHARD_COUNT !== undefined || process.env.SHARD_LIST !== undefined);
if (ignoredShardCount) {
  // discord.js reads SHARD_COUNT itself; one process must run every shard's guilds.
  delete process.env.SHARD_COUNT;
  delete process.env.SHARD_LIST;
}

const config = parseConfigOrExit(process.env);

const logger = createLogger({ level: config.logLevel, pretty: config.prettyLogs }).child(
  underManager ? { shard: process.env.SHARDS } : {},
);
installVoiceCrashGuard(process, logger);
if (ignoredShardCount)
  logger.warn('SHARD_COUNT and SHARD_LIST are for `npm run start:sharded`; ignored here');

// Metrics are kept when something can read them: this process's endpoint, or the manager's.
const metrics = underManager || config.httpPort !== undefined ? new PrometheusMetrics() : undefined;
let http: OpsServer | undefined;
try {
  // Under a manager, discord.js sets SHARD_COUNT to the total: every shard shares the budgets.
  const budgetSharers =
    underManager && typeof config.shardCount === 'number' ? config.shardCount : 1;
  const bot = await startBot(config, {
    logger,
    budgetSharers,
    ...(metrics === undefined ? {} : { metrics }),
  });
  const send = process.send?.bind(process);
  if (underManager && metrics !== undefined && send !== undefined) {
    const port = { send, on: process.on.bind(process), off: process.off.bind(process) };
    answerManager(port, (question) => (question === 'metrics' ? metrics.json() : bot.ready()));
  } else if (config.httpPort !== undefined && metrics !== undefined) {
    http = await startOpsServer({
      port: config.httpPort,
      host: config.httpHost,
      logger,
      probes: { ready: () => bot.ready(), metrics: () => expose(metrics.registry) },
    });
  }
  const shutdown = (signal: string) => {
    logger.info({ signal }, 'shutting down');
    // Orchestrators kill after 10 s; a part that hangs must not make the stop unclean.
    setTimeout(() => {
      logger.error({ signal }, `shutdown took longer than ${SHUTDOWN_LIMIT_MS / 1000} s`);
      logger.flush();
      process.exit(1);
    }, SHUTDOWN_LIMIT_MS).unref();
    Promise.all([http?.close(), bot.stop()]).then(
      () => {
        logger.info('stopped');
        logger.flush();
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
  // A shard whose manager is gone (killed outright) must not live on as an orphan.
  if (underManager) process.once('disconnect', () => shutdown('manager gone'));
} catch (error) {
  logStartFailure(logger, error, 'the bot could not start');
  logger.flush();
  process.exitCode = 1;
  // Everything opened was closed; should anything still hold the event loop, do not hang.
  setTimeout(() => process.exit(1), 5000).unref();
}
