import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../log/index.ts';

/**
 * Reads a 32-byte secret key written as 64 hex characters or as base64
 * (standard or URL alphabet, padding optional), strictly: any other character,
 * length or non-canonical encoding is refused, and so is an all-zero key.
 * Returns the reason as a string when the text is not a usable key.
 */
export function parseSecretKey(text: string): Buffer | string {
  const trimmed = text.trim();
  let key: Buffer | undefined;
  if (/^[0-9a-f]{64}$/i.test(trimmed)) key = Buffer.from(trimmed, 'hex');
  else if (/^[A-Za-z0-9+/]{43}=?$/.test(trimmed)) key = canonical(trimmed, 'base64');
  else if (/^[A-Za-z0-9_-]{43}$/.test(trimmed)) key = canonical(trimmed, 'base64url');
  if (key === undefined || key.length !== 32) {
    return 'must be 32 bytes, as 64 hex characters or base64';
  }
  if (key.every((byte) => byte === 0)) return 'must not be all zeros';
  return key;
}

/** The bytes of `text` when re-encoding them gives the same text (no stray bits ignored). */
function canonical(text: string, encoding: 'base64' | 'base64url'): Buffer | undefined {
  const bytes = Buffer.from(text, encoding);
  const again = bytes.toString(encoding).replace(/=+$/, '');
  return again === text.replace(/=+$/, '') ? bytes : undefined;
}

/** GCM's full tag; shorter tags are refused, since each byte less makes forging easier. */
const TAG_BYTES = 16;
const IV_BYTES = 12;

/** The additional data that binds a sealed API key to its guild. */
function boundTo(guildId: string): string {
  return `guild:${guildId}`;
}

/**
 * Seals a secret for storage with AES-256-GCM under `key`, bound to `context` (the GCM
 * additional data): base64 of iv|tag|ciphertext, with a random IV. The one cipher for every
 * secret the bot keeps at rest; a sealed value opens only with the same key and context.
 */
export function sealBound(plaintext: string, key: Buffer, context: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64');
}

/**
 * Opens what {@link sealBound} produced under the same `key` and `context`. Throws when
 * either differs or the sealed text was altered in any way (it must be canonical base64).
 */
export function openBound(sealed: string, key: Buffer, context: string): string {
  return open(sealed, key, context);
}

/** Opens a sealed payload; `context` undefined only for `v1` API keys sealed before binding. */
function open(sealed: string, key: Buffer, context: string | undefined): string {
  const bytes = Buffer.from(sealed, 'base64');
  // Buffer.from skips what is not base64: a changed character must not go unnoticed.
  if (bytes.toString('base64') !== sealed) throw new Error('the sealed secret is not base64');
  if (bytes.length < IV_BYTES + TAG_BYTES) throw new Error('the sealed secret is truncated');
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES), {
    authTagLength: TAG_BYTES,
  });
  if (context !== undefined) decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([
    decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)),
    decipher.final(),
  ]).toString('utf8');
}

/**
 * Encrypts a secret (an API key) for storage, bound to `guildId`: {@link sealBound} with
 * the guild id as additional data, as `v2:<base64 iv|tag|ciphertext>`. A record copied to
 * another guild does not decrypt there.
 */
export function encryptSecret(plaintext: string, key: Buffer, guildId: string): string {
  return `v2:${sealBound(plaintext, key, boundTo(guildId))}`;
}

/** A sealed record split into its format and payload, or undefined when it is neither format. */
function parseSealed(sealed: string): { version: 'v1' | 'v2'; payload: string } | undefined {
  const [version, payload, ...rest] = sealed.split(':');
  if ((version !== 'v1' && version !== 'v2') || payload === undefined || rest.length > 0) {
    return undefined;
  }
  return { version, payload };
}

/**
 * Decrypts what {@link encryptSecret} produced for `guildId`. Throws when the key or guild is
 * wrong, the data was altered, or the record is a `v1` one: those opened in any guild, so a
 * copied record would too; the start re-seals them ({@link resealLegacySecret}) and then
 * refuses the format.
 */
export function decryptSecret(sealed: string, key: Buffer, guildId: string): string {
  const parsed = parseSealed(sealed);
  if (parsed === undefined) throw new Error('unknown secret format');
  if (parsed.version === 'v1') {
    throw new Error('a v1 record (not bound to its guild) is refused; the start re-seals them');
  }
  return open(parsed.payload, key, boundTo(guildId));
}

/** True for a record in the `v1` format, sealed before secrets were bound to a guild. */
export function isLegacySecret(sealed: string): boolean {
  return parseSealed(sealed)?.version === 'v1';
}

/**
 * Re-seals a `v1` record as `v2`, bound to `guildId` (the guild whose settings hold it). For the
 * one migration at start only. Throws when it is not a `v1` record or does not open with `key`.
 */
export function resealLegacySecret(sealed: string, key: Buffer, guildId: string): string {
  return encryptSecret(openLegacySecret(sealed, key), key, guildId);
}

/**
 * Opens a `v1` record (sealed before binding), for re-sealing it as `v2` only: never to use a
 * key read from one. Throws when it is not a `v1` record or does not open with `key`.
 */
export function openLegacySecret(sealed: string, key: Buffer): string {
  const parsed = parseSealed(sealed);
  if (parsed?.version !== 'v1') throw new Error('not a v1 record');
  return open(parsed.payload, key, undefined);
}

/**
 * The key that encrypts stored API keys: `SECRET_KEY` when set, else the
 * one in `<dataDir>/secret.key`, generated (owner-only) on first start.
 */
export async function loadSecretKey(
  configured: Buffer | undefined,
  dataDir: string,
  logger: Logger,
): Promise<Buffer> {
  if (configured !== undefined) return configured;
  const path = join(dataDir, 'secret.key');
  try {
    const saved = parseSecretKey(await readFile(path, 'utf8'));
    if (typeof saved === 'string') throw new Error(`${path} ${saved}`);
    return saved;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await mkdir(dataDir, { recursive: true });
  const key = randomBytes(32);
  await writeFile(path, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  await chmod(path, 0o600);
  logger.warn(
    { path },
    'SECRET_KEY is not set: generated one for encrypting stored API keys; back it up, or set SECRET_KEY',
  );
  return key;
}
