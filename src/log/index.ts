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
    return pino({ ...base, transport: { target: 'pino-pretty', options: { colorize: true } } });
  }
  return pino(base);
}
