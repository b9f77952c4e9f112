import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../log/index.ts';

const VERSION = 'v1';

/** Encrypts a secret (an API key) for storage: AES-256-GCM with a random IV, as `v1:<base64 iv|tag|ciphertext>`. */
export function encryptSecret(plaintext: string, key: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64')}`;
}

/** Decrypts what {@link encryptSecret} produced; throws when the key is wrong or the data was altered. */
export function decryptSecret(sealed: string, key: Buffer): string {
  const [version, payload] = sealed.split(':');
  if (version !== VERSION || payload === undefined) throw new Error('unknown secret format');
  const bytes = Buffer.from(payload, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12));
  decipher.setAuthTag(bytes.subarray(12, 28));
  return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
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
    const saved = Buffer.from((await readFile(path, 'utf8')).trim(), 'hex');
    if (saved.length !== 32) throw new Error(`${path} does not hold a 32-byte hex key`);
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
