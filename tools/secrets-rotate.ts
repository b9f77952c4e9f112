/**
 * `npm run secrets:rotate`: seals every stored record (each server's API key, the reply tokens
 * of journalled speech) with SECRET_KEY at once, opening each with SECRET_KEY or one of
 * SECRET_KEY_PREVIOUS, and prints how many it rewrote. Afterwards the bot needs no
 * SECRET_KEY_PREVIOUS. No secret, key or token is ever printed.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, parseStoreConfig, type StoreConfig } from '../src/config/index.ts';
import { type JournalIndex, PendingJournal, RedisJournalIndex } from '../src/durable/index.ts';
import { createLogger } from '../src/log/index.ts';
import {
  type ApiKeyRotation,
  ApiKeyVault,
  KeyvSettingsStore,
  loadSecretKeys,
  openKeyv,
  openRedis,
  type RedisConnection,
  resealApiKeys,
} from '../src/store/index.ts';
import { systemClock } from '../src/tts/index.ts';

/** Exit codes: every record current, some record opens with no secret, settings or store wrong. */
const EXIT = { done: 0, unopenable: 1, failed: 2 } as const;

type TokenRotation = Awaited<ReturnType<PendingJournal['reseal']>>;

/** The lines printed for a finished run, and its exit code. */
function rotationReport(
  keys: ApiKeyRotation,
  tokens: TokenRotation,
  generatedKeyLeft: string | undefined,
): { lines: string[]; code: number } {
  const lines = [
    `API keys rewritten:        ${keys.resealed}`,
    `Journal tokens rewritten:  ${tokens.rewritten}`,
    `Already current:           ${keys.current + tokens.current} (${keys.current} API keys, ${tokens.current} journal tokens)`,
    `Unopenable:                ${keys.unreadable + tokens.unreadable}`,
  ];
  if (keys.unreadable + tokens.unreadable > 0) {
    const servers = keys.unreadableGuilds.slice(0, 20).join(', ');
    lines.push(
      '',
      `Some records open with neither SECRET_KEY nor any secret in SECRET_KEY_PREVIOUS${servers === '' ? '' : ` (API keys of servers ${servers}${keys.unreadableGuilds.length > 20 ? ', …' : ''})`}.`,
      'Add the secret they were sealed with to SECRET_KEY_PREVIOUS (comma-separated) and run again,',
      'or have those servers’ admins set their key again with /config api-key. Keep SECRET_KEY_PREVIOUS until then.',
    );
    return { lines, code: EXIT.unopenable };
  }
  lines.push('', 'Every record is sealed with SECRET_KEY: SECRET_KEY_PREVIOUS can be removed.');
  if (generatedKeyLeft !== undefined) {
    lines.push(`${generatedKeyLeft} (a generated key) is no longer used while SECRET_KEY is set.`);
  }
  return { lines, code: EXIT.done };
}

async function rotate(config: StoreConfig): Promise<number> {
  // Only warnings: the summary below says what happened, and secrets are never logged anyway.
  const logger = createLogger({ level: 'warn', pretty: false, destination: process.stderr });
  const secrets = await loadSecretKeys(config, logger, { create: false });
  process.stdout.write(
    `Sealing stored records with SECRET_KEY (${secrets.previous.length} previous secrets to open them with).\n`,
  );
  const keyv = await openKeyv(config.storeUrl);
  let redis: RedisConnection | undefined;
  try {
    let index: JournalIndex | undefined;
    if (/^rediss?:\/\//.test(config.storeUrl)) {
      const connection = await openRedis(config.storeUrl, (error) =>
        logger.warn({ err: error }, 'Redis connection error'),
      );
      redis = connection;
      index = new RedisJournalIndex(connection, keyv);
    }
    const settings = new KeyvSettingsStore(keyv);
    const keys = await resealApiKeys(settings, new ApiKeyVault(settings, secrets));
    const journal = new PendingJournal(keyv, {
      secretKey: secrets.current,
      previousSecretKeys: secrets.previous,
      clock: systemClock,
      index,
    });
    const tokens = await journal.reseal();
    const generated = join(config.dataDir, 'secret.key');
    const left = config.secretKey !== undefined && existsSync(generated) ? generated : undefined;
    const report = rotationReport(keys, tokens, left);
    process.stdout.write(`${report.lines.join('\n')}\n`);
    return report.code;
  } finally {
    await redis?.close();
    await keyv.disconnect();
  }
}

let code: number;
try {
  code = await rotate(parseStoreConfig(process.env));
} catch (error) {
  const message =
    error instanceof ConfigError ? `${error.message}\nSee .env.example for every variable.` : null;
  process.stderr.write(
    `${message ?? `secrets:rotate failed: ${error instanceof Error ? error.message : String(error)}`}\n`,
  );
  code = EXIT.failed;
}
// @keyv/redis leaves its connection-timeout timer running for 5 s after disconnecting: the
// work is done and written, so the run ends now.
process.exit(code);
