import { type Config, ConfigError, parseConfig } from './parse.ts';

/**
 * The config for an entry point (`npm start`, `npm run start:sharded`): a wrong
 * variable is one clear line on stderr and exit code 1, never a stack trace.
 */
export function parseConfigOrExit(env: NodeJS.ProcessEnv): Config {
  try {
    return parseConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\nSee .env.example for every variable.\n`);
    process.exit(1);
  }
}
