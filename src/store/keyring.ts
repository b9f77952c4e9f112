import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../log/index.ts';
import { loadSecretKey, parseSecretKey } from './secrets.ts';

/**
 * The secrets that seal stored records: `current` seals everything written, and `previous`
 * (`SECRET_KEY_PREVIOUS`) may still open records sealed before a rotation, which are then
 * sealed again with `current`.
 */
export interface SecretKeys {
  readonly current: Buffer;
  readonly previous: readonly Buffer[];
}

/** What to tell an operator when a record opens with no secret given (never a secret itself). */
export const UNOPENABLE_HINT =
  'set SECRET_KEY_PREVIOUS (comma-separated) to the secret it was sealed with, then run `npm run secrets:rotate`';

/** The key ring of `current` alone (no rotation under way). */
export function onlyKey(current: Buffer): SecretKeys {
  return { current, previous: [] };
}

/** A secret that no given key opened; the cause says why the last one failed. */
export class NoSecretOpensError extends Error {
  override readonly name = 'NoSecretOpensError';
}

/**
 * Opens a sealed record with the current secret, else with each previous one in turn.
 * `stale` is true when a previous secret opened it (the caller seals it again with the current
 * one). Throws {@link NoSecretOpensError} when none opens it.
 */
export function openWithAny(
  keys: SecretKeys,
  open: (key: Buffer) => string,
): { plaintext: string; stale: boolean } {
  let failure: unknown;
  for (const [index, key] of [keys.current, ...keys.previous].entries()) {
    try {
      return { plaintext: open(key), stale: index > 0 };
    } catch (error) {
      failure = error;
    }
  }
  throw new NoSecretOpensError('no configured secret opens this record', { cause: failure });
}

/**
 * The bot's key ring: `SECRET_KEY` (or, when unset, the key kept in `<dataDir>/secret.key`,
 * generated on first start unless `create` is false) and `SECRET_KEY_PREVIOUS`. When
 * `SECRET_KEY` is set and the data folder still holds a different generated key, that key is
 * tried as a previous one, so moving from a generated key to SECRET_KEY is a rotation too.
 */
export async function loadSecretKeys(
  config: {
    readonly secretKey: Buffer | undefined;
    readonly previousSecretKeys: readonly Buffer[];
    readonly dataDir: string;
  },
  logger: Logger,
  options: { create?: boolean } = {},
): Promise<SecretKeys> {
  const path = join(config.dataDir, 'secret.key');
  if (
    config.secretKey === undefined &&
    options.create === false &&
    (await savedKey(path)) === undefined
  ) {
    throw new Error(
      `SECRET_KEY is not set and ${path} holds no key: set SECRET_KEY to the bot's secret, or DATA_DIR to its data folder`,
    );
  }
  const current = await loadSecretKey(config.secretKey, config.dataDir, logger);
  const previous = [...config.previousSecretKeys];
  const saved = config.secretKey === undefined ? undefined : await savedKey(path);
  if (saved !== undefined && !saved.equals(current)) {
    logger.info(
      { path },
      'SECRET_KEY differs from the generated key in the data folder: that key is tried as a previous one',
    );
    previous.push(saved);
  }
  const distinct = previous.filter(
    (key, i) => !key.equals(current) && previous.findIndex((other) => other.equals(key)) === i,
  );
  return { current, previous: distinct };
}

/** The key in `path` when the file exists and holds one; undefined otherwise. */
async function savedKey(path: string): Promise<Buffer | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const key = parseSecretKey(text);
  return typeof key === 'string' ? undefined : key;
}
