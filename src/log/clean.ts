/**
 * What may reach a log line. Every logged object is walked (any depth): values under
 * secret names are replaced, errors become plain records without request bodies,
 * secrets recognisable by their shape (Discord bot tokens, `Bearer` credentials, webhook
 * and interaction tokens) are masked in any string under any name, and bytes are
 * replaced by their length.
 */

/** What replaces a secret value. */
export const CENSORED = '[redacted]';

/** Property names whose values are secrets, compared without case, `-` or `_`. */
const SECRET_NAMES = new Set([
  'apikey',
  'xapikey',
  'token',
  'discordtoken',
  'accesstoken',
  'refreshtoken',
  'key',
  'secret',
  'secretkey',
  'clientsecret',
  'sealedapikey',
  'authorization',
  'proxyauthorization',
  'password',
  'passwd',
  'cookie',
  'setcookie',
]);

/** Properties that carry what was sent (discord.js puts attachments there): never logged. */
const REQUEST_BODY_NAMES = new Set(['requestbody', 'body', 'files']);

const MAX_DEPTH = 8;
const MAX_STRING = 4000;

const normalise = (name: string): string => name.toLowerCase().replace(/[-_]/g, '');

/** True when a property called `name` holds a secret. */
export function isSecretName(name: string): boolean {
  return SECRET_NAMES.has(normalise(name));
}

/**
 * Masks the token in Discord webhook and interaction addresses
 * (`/webhooks/<id>/<token>`, `/interactions/<id>/<token>`): whoever holds it can
 * answer as the bot for 15 minutes.
 */
export function maskDiscordTokens(text: string): string {
  return text.replace(
    /(\/(?:webhooks|interactions)\/\d+\/)[^/?#\s"']+/g,
    (_, prefix: string) => `${prefix}${CENSORED}`,
  );
}

/**
 * A Discord bot token: the bot's id in base64, a timestamp and an HMAC, dot-separated
 * (`MTEx….GhIjKl.abc…`); whoever holds it is the bot. JSON web tokens share the shape.
 */
const BOT_TOKEN =
  /(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{20,}(?![A-Za-z0-9_-])/g;

/** An HTTP `Bearer` credential (RFC 6750 token characters), wherever it was written. */
const BEARER = /\b(Bearer)(\s+)[A-Za-z0-9._~+/=-]+/gi;

/**
 * Masks every secret recognisable by its shape in `text`, whatever field or message holds it:
 * Discord bot tokens, `Bearer` credentials, and webhook and interaction tokens.
 */
export function maskSecrets(text: string): string {
  return maskDiscordTokens(text)
    .replace(BEARER, (_, word: string, space: string) => `${word}${space}${CENSORED}`)
    .replace(BOT_TOKEN, CENSORED);
}

function cleanString(text: string): string {
  const short =
    text.length > MAX_STRING ? `${text.slice(0, MAX_STRING)}… (${text.length} chars)` : text;
  return maskSecrets(short);
}

/** An error as a plain record for a log line: name, message, stack, its own fields and causes. */
export function serializeError(error: Error, seen = new WeakSet<object>(), depth = 0): unknown {
  seen.add(error);
  const record: Record<string, unknown> = {
    type: error.constructor?.name ?? error.name,
    message: cleanString(error.message),
  };
  if (error.name !== record.type) record.name = error.name;
  if (error.stack !== undefined) record.stack = cleanString(error.stack);
  for (const [name, value] of Object.entries(error)) {
    if (name === 'message' || name === 'stack') continue;
    record[name] = cleanField(name, value, seen, depth + 1);
  }
  if (error.cause !== undefined) record.cause = cleanField('cause', error.cause, seen, depth + 1);
  if (error instanceof AggregateError) {
    record.errors = cleanField('errors', error.errors, seen, depth + 1);
  }
  seen.delete(error);
  return record;
}

function cleanField(name: string, value: unknown, seen: WeakSet<object>, depth: number): unknown {
  if (value === undefined || value === null) return value;
  if (isSecretName(name)) return CENSORED;
  if (REQUEST_BODY_NAMES.has(normalise(name))) return '[request body not logged]';
  return cleanValue(value, seen, depth);
}

function cleanValue(value: unknown, seen: WeakSet<object>, depth: number): unknown {
  if (typeof value === 'string') return cleanString(value);
  if (typeof value !== 'object' || value === null) return value;
  if (seen.has(value)) return '[circular]';
  if (depth > MAX_DEPTH) return '[too deep]';
  if (value instanceof Error) return serializeError(value, seen, depth);
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) {
    return `[${value.byteLength} bytes]`;
  }
  if (value instanceof Date || value instanceof URL) return cleanString(String(value));
  seen.add(value);
  try {
    if (Array.isArray(value)) return value.map((item) => cleanValue(item, seen, depth + 1));
    if (value instanceof Map) {
      return Object.fromEntries(
        [...value].map(([k, v]) => [String(k), cleanField(String(k), v, seen, depth + 1)]),
      );
    }
    if (value instanceof Set) return [...value].map((item) => cleanValue(item, seen, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [name, field] of Object.entries(value)) {
      out[name] = cleanField(name, field, seen, depth + 1);
    }
    return out;
  } finally {
    // Shared (non-circular) references may appear more than once; only cycles are cut.
    seen.delete(value);
  }
}

/** A copy of a log record that is safe to write (see the module comment). */
export function cleanForLog(record: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const seen = new WeakSet<object>();
  for (const [name, value] of Object.entries(record)) out[name] = cleanField(name, value, seen, 0);
  return out;
}
