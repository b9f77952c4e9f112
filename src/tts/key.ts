import { createHash } from 'node:crypto';

/** A stable, non-secret identifier of an API key, used for budgets, caches and logs. */
export function keyId(apiKey: string): string {
  return createHash('sha256').update(apiKey).digest('hex').slice(0, 16);
}

/**
 * An API key shown to people, e.g. `adx…0001`: enough to tell keys apart, never
 * enough to help guess one (at most 4 leading and 4 trailing characters, and
 * never more than a third of the key).
 */
export function maskKey(apiKey: string): string {
  const shown = Math.floor(apiKey.length / 3);
  const head = Math.min(4, Math.floor(shown / 2));
  const tail = Math.min(4, shown - head);
  return `${apiKey.slice(0, head)}…${tail === 0 ? '' : apiKey.slice(-tail)}`;
}

/**
 * True when `apiKey` can be sent in an HTTP header (visible ASCII only). A key
 * that cannot would fail inside `fetch` with an error that quotes it.
 */
export function isSendableKey(apiKey: string): boolean {
  return /^[\x21-\x7E]+$/.test(apiKey);
}
