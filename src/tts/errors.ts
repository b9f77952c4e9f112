import type { z } from 'zod';

/** Why a TTS API call failed, by cause; messages for users are chosen from this in one place. */
export type TtsErrorKind =
  | 'invalid_key'
  | 'access_denied'
  | 'plan_required'
  | 'not_found'
  | 'invalid_voice'
  | 'bad_request'
  | 'insufficient_balance'
  | 'rate_limited'
  | 'quota_exhausted'
  | 'server_error'
  | 'timeout'
  | 'network'
  | 'malformed_response'
  | 'generation_failed'
  | 'generation_timeout'
  | 'media_refused';

/** Extra facts a caller may show or act on. */
export interface TtsErrorContext {
  readonly status?: number;
  /** When a rate limit or daily quota frees up again (epoch ms). */
  readonly retryAt?: number;
  /** The generation concerned, kept so a user can quote it. */
  readonly generationId?: string;
  /** The client-side limit that was used up (with `quota_exhausted`). */
  readonly limit?: { readonly count: number; readonly windowMs: number };
  readonly cause?: unknown;
}

/** A failed TTS API call. The message never contains the API key. */
export class TtsError extends Error {
  override readonly name = 'TtsError';
  readonly kind: TtsErrorKind;
  readonly status: number | undefined;
  readonly retryAt: number | undefined;
  readonly generationId: string | undefined;
  readonly limit: { readonly count: number; readonly windowMs: number } | undefined;

  constructor(kind: TtsErrorKind, message: string, context: TtsErrorContext = {}) {
    super(message, context.cause === undefined ? undefined : { cause: context.cause });
    this.kind = kind;
    this.status = context.status;
    this.retryAt = context.retryAt;
    this.generationId = context.generationId;
    this.limit = context.limit;
  }
}

/** True for failures worth trying again later (the same request may succeed). */
export function isTransient(error: unknown): boolean {
  return (
    error instanceof TtsError &&
    ['rate_limited', 'server_error', 'timeout', 'network'].includes(error.kind)
  );
}

/** Longest piece of the service's own words an error keeps (and so a log line or reply shows). */
export const MAX_SERVICE_TEXT = 300;

/**
 * The TTS service's own words (an error detail, a failure reason) made fit to repeat
 * in logs and replies: every copy of the key removed, control characters and runs of
 * space collapsed, at most {@link MAX_SERVICE_TEXT} characters. Discord refuses a reply
 * over 2,000 characters, so an uncut 6,000-character detail left the member with nothing.
 */
export function serviceText(text: string, apiKey: string): string {
  const withoutKey = apiKey === '' ? text : text.split(apiKey).join('[API key]');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
  const flat = withoutKey.replace(/[\u0000-\u001f\u007f\s]+/g, ' ').trim();
  return flat.length > MAX_SERVICE_TEXT ? `${flat.slice(0, MAX_SERVICE_TEXT - 1)}…` : flat;
}

/**
 * Turns an error body's `detail` (a string, an object, or a list of field
 * errors, as the vendor sends) into one readable sentence.
 */
export function describeDetail(body: unknown): string | undefined {
  if (body === null || typeof body !== 'object') return undefined;
  const { detail, error } = body as { detail?: unknown; error?: unknown };
  const text = describe(detail);
  if (typeof error === 'string' && error !== '' && error !== text) {
    return text === undefined ? error : `${text}: ${error}`;
  }
  return text;
}

function describe(detail: unknown): string | undefined {
  if (typeof detail === 'string') return detail.trim() || undefined;
  if (Array.isArray(detail)) {
    const parts = detail.map(describeFieldError).filter((part) => part !== undefined);
    return parts.length > 0 ? parts.join('; ') : undefined;
  }
  if (detail !== null && typeof detail === 'object') {
    const { error, message, msg } = detail as Record<string, unknown>;
    for (const candidate of [error, message, msg]) {
      if (typeof candidate === 'string' && candidate !== '') return candidate;
    }
    return JSON.stringify(detail);
  }
  return undefined;
}

function describeFieldError(item: unknown): string | undefined {
  if (typeof item === 'string') return item;
  if (item === null || typeof item !== 'object') return undefined;
  const { loc, msg } = item as { loc?: unknown; msg?: unknown };
  const field = Array.isArray(loc)
    ? loc.filter((part) => part !== 'body' && part !== 'query').join('.')
    : '';
  const text = typeof msg === 'string' ? msg : JSON.stringify(item);
  return field === '' ? text : `${field}: ${text}`;
}

/** Maps an HTTP error status and the server's sentence to a typed error. */
export function errorForStatus(status: number, detail: string | undefined): TtsError {
  const text = detail ?? `HTTP ${status}`;
  const context = { status };
  switch (status) {
    case 400:
      // v3 also refuses a voice of the other model ("not compatible with model").
      return /voice/i.test(text) && /invalid|not found|not compatible/i.test(text)
        ? new TtsError('invalid_voice', text, context)
        : new TtsError('bad_request', text, context);
    case 401:
      return new TtsError('invalid_key', text, context);
    case 402:
      return new TtsError('insufficient_balance', text, context);
    case 403:
      return /paid plan/i.test(text)
        ? new TtsError('plan_required', text, context)
        : new TtsError('access_denied', text, context);
    case 404:
      return new TtsError('not_found', text, context);
    case 429:
      return new TtsError('rate_limited', text, context);
    default:
      return status >= 500
        ? new TtsError('server_error', text, context)
        : new TtsError('bad_request', text, context);
  }
}

/** The failure of every call made with a key that cannot be sent; it carries no cause that could quote the key. */
export function unsendableKeyError(): TtsError {
  return new TtsError(
    'invalid_key',
    'the API key contains characters that cannot be sent in an HTTP header',
  );
}

/** Parses an answer with `schema`, or fails as `malformed_response` naming the first bad field. */
export function parseAnswer<T>(schema: z.ZodType<T>, body: unknown, where: string): T {
  const result = schema.safeParse(body);
  if (!result.success) {
    const issue = result.error.issues[0];
    const field = issue?.path.join('.') || 'body';
    throw new TtsError('malformed_response', `${where} answered an unexpected shape (${field})`);
  }
  return result.data;
}
