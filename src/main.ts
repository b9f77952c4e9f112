import { startBot } from './bot.ts';
import { type Config, ConfigError, parseConfig } from './config/index.ts';
import { createLogger } from './log/index.ts';
import { installVoiceCrashGuard } from './voice/index.ts';

/** Longest graceful shutdown before the process exits anyway (below the usual 10 s kill). */
const SHUTDOWN_LIMIT_MS = 8000;

let config: Config;
try {
  config = parseConfig(process.env);
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`${error.message}\nSee .env.example for every variable.\n`);
  process.exit(1);
}

const logger = createLogger({ level: config.logLevel, pretty: config.prettyLogs });
installVoiceCrashGuard(process, logger);

try {
  const bot = await startBot(config, { logger });
  const shutdown = (signal: string) => {
    logger.info({ signal }, 'shutting down');
    // Orchestrators kill after 10 s; a part that hangs must not make the stop unclean.
    setTimeout(() => {
      logger.error({ signal }, `shutdown took longer than ${SHUTDOWN_LIMIT_MS / 1000} s`);
      logger.flush();
      process.exit(1);
    }, SHUTDOWN_LIMIT_MS).unref();
    bot.stop().then(
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
} catch (error) {
  logger.fatal({ err: error }, error instanceof Error ? error.message : 'the bot could not start');
  logger.flush();
  process.exitCode = 1;
  // Everything opened was closed; should anything still hold the event loop, do not hang.
  setTimeout(() => process.exit(1), 5000).unref();
}
