import { createHash } from 'node:crypto';

/** A stable, non-secret identifier of an API key, used for budgets, caches and logs. */
export function keyId(apiKey: string): string {
  return createHash('sha256').update(apiKey).digest('hex').slice(0, 16);
}

/** An API key shown to people: `adx_…1a2b`. Never more than the prefix and last four characters. */
export function maskKey(apiKey: string): string {
  const prefix = /^[a-z]+_/i.exec(apiKey)?.[0] ?? '';
  const tail = apiKey.length >= prefix.length + 8 ? apiKey.slice(-4) : '';
  return `${prefix}…${tail}`;
}

/**
 * True when `apiKey` can be sent in an HTTP header (visible ASCII only). A key
 * that cannot would fail inside `fetch` with an error that quotes it.
 */
export function isSendableKey(apiKey: string): boolean {
  return /^[\x21-\x7E]+$/.test(apiKey);
}
