import pino, { type Logger } from 'pino';

export type { Logger } from 'pino';

/** Paths that may hold secrets; pino replaces their values before anything is written. */
export const REDACTED_PATHS = [
  'apiKey',
  'token',
  'key',
  'secret',
  '*.apiKey',
  '*.token',
  '*.key',
  '*.secret',
  '*.authorization',
  '*.headers.authorization',
  '*.headers["x-api-key"]',
  'headers["x-api-key"]',
];

/** The bot's logger: JSON in production, pretty in development; secrets redacted. */
export function createLogger(options: {
  level: string;
  pretty: boolean;
  destination?: pino.DestinationStream;
}): Logger {
  const base: pino.LoggerOptions = {
    level: options.level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
  };
  if (options.destination !== undefined) return pino(base, options.destination);
  if (options.pretty) {
    return pino({ ...base, transport: { target: 'pino-pretty', options: { colorize: true } } });
  }
  return pino(base);
}
