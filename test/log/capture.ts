import { createLogger } from '../../src/log/index.ts';

/** A logger like production's (JSON), writing its lines to an array. */
export function capture() {
  const lines: string[] = [];
  const logger = createLogger({
    level: 'debug',
    pretty: false,
    destination: { write: (line: string) => lines.push(line) },
  });
  return { logger, lines };
}
