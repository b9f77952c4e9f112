import pino, { type Logger } from 'pino';
import { cleanForLog, maskSecrets } from './clean.ts';

export type { Logger } from 'pino';
export {
  CENSORED,
  cleanForLog,
  isSecretName,
  maskDiscordTokens,
  maskSecrets,
  serializeError,
} from './clean.ts';

/**
 * The bot's logger: JSON in production, pretty in development. Every logged record
 * passes {@link cleanForLog} (secrets, errors without request bodies) and every line
 * has bot tokens, `Bearer` credentials and webhook tokens masked, so no call site has to remember.
 */
export function createLogger(options: {
  level: string;
  pretty: boolean;
  destination?: pino.DestinationStream;
}): Logger {
  const base: pino.LoggerOptions = {
    level: options.level,
    formatters: { log: cleanForLog },
    // Records arrive here already cleaned; pino's own error serializer would add nothing.
    serializers: { err: (value: unknown) => value },
    // The finished line, child bindings and message included: the last chance to mask a token.
    hooks: { streamWrite: maskSecrets },
  };
  if (options.destination !== undefined) return pino(base, options.destination);
  if (options.pretty) {
    // One line per record, so a start-up that fails reads as a few lines; errors stay multi-line.
    return pino({
      ...base,
      transport: { target: 'pino-pretty', options: { colorize: true, singleLine: true } },
    });
  }
  return pino(base);
}

/**
 * Says why the bot could not start in one line at the default level (what happened and what to
 * do, from the error's message); its stack and causes only at `LOG_LEVEL=debug`.
 */
export function logStartFailure(logger: Logger, error: unknown, fallback: string): void {
  const message = error instanceof Error && error.message !== '' ? error.message : fallback;
  const more = logger.isLevelEnabled('debug') ? '' : ' (LOG_LEVEL=debug shows the details)';
  logger.fatal(`${message}${more}`);
  logger.debug({ err: error }, 'why the bot could not start');
}
