import type { Clock } from './clock.ts';
import {
  describeDetail,
  errorForStatus,
  serviceText,
  TtsError,
  unsendableKeyError,
} from './errors.ts';
import type { RateGate } from './gate.ts';
import type { TtsMetrics } from './metrics.ts';
import type { Operation } from './types.ts';

/** Everything a request needs besides its own method and path. */
export interface HttpContext {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly keyId: string;
  readonly gate: RateGate;
  readonly clock: Clock;
  readonly fetch: typeof fetch;
  readonly timeoutMs: number;
  /** Largest JSON answer read; a bigger one fails as `malformed_response` without being buffered. Default 1 MiB. */
  readonly maxResponseBytes?: number | undefined;
  /** Attempts after the first, for 429 (any method) and for transient failures of GETs. */
  readonly maxRetries: number;
  /**
   * The first wait before a retry without `Retry-After`; each next one doubles it. Default
   * {@link DEFAULT_RETRY_BASE_MS} (1 s, 2 s, 4 s…); tests of faults pass a small one.
   */
  readonly retryBaseMs?: number | undefined;
  /**
   * Failures to update the rate budget after an answer. They never replace the
   * call's own outcome (a POST that succeeded has spent quota: its id must reach the caller).
   */
  readonly onBudgetError?: ((error: unknown) => void) | undefined;
  /** Counts the requests that do not go through `fetch` (v3's stream); `fetch` counts its own. */
  readonly metrics?: TtsMetrics | undefined;
}

/** The wait before the first retry of a call whose answer named none; each next wait doubles it. */
export const DEFAULT_RETRY_BASE_MS = 1000;

/** How long to wait before retry number `attempt + 1` (from 0) when the answer gave no `Retry-After`. */
export function retryDelayMs(attempt: number, baseMs = DEFAULT_RETRY_BASE_MS): number {
  return baseMs * 2 ** attempt;
}

/** One API call. */
export interface ApiRequest {
  readonly op: Operation;
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly query?: Readonly<Record<string, string>>;
  readonly body?: unknown;
  readonly signal?: AbortSignal | undefined;
}

/** Network failures that happen before a request leaves: retrying cannot duplicate it. */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
]);

/** Plain words for the network failures seen most, so messages read as sentences. */
const NETWORK_REASONS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
  ENETUNREACH: 'network unreachable',
  EHOSTUNREACH: 'host unreachable',
  ECONNRESET: 'the connection was closed before an answer',
  UND_ERR_SOCKET: 'the connection was closed before an answer',
  ETIMEDOUT: 'could not connect in time',
  UND_ERR_CONNECT_TIMEOUT: 'could not connect in time',
};

/**
 * Sends one API call through the rate gate and returns its parsed JSON body.
 * 429 is retried with exponential backoff (honouring Retry-After); GETs also
 * retry 5xx and network failures; a POST is never repeated once it may have
 * reached the server.
 */
export async function callApi(context: HttpContext, request: ApiRequest): Promise<unknown> {
  const idempotent = request.method === 'GET';
  for (let attempt = 0; ; attempt++) {
    const takenAt = await context.gate.acquire(context.keyId, request.op, request.signal);
    let outcome: Outcome;
    try {
      outcome = await send(context, request);
    } catch (error) {
      if (request.signal?.aborted) throw request.signal.reason;
      throw error;
    } finally {
      await answered(context, request.op, takenAt);
    }
    if (outcome.ok) return outcome.body;
    const { error, retryAfterMs, sent } = outcome;
    const retryable =
      error.kind === 'rate_limited' ||
      (!sent && error.kind === 'network') ||
      (idempotent && ['server_error', 'network', 'timeout'].includes(error.kind));
    if (!retryable || attempt >= context.maxRetries) throw error;
    await context.clock.sleep(
      retryAfterMs ?? retryDelayMs(attempt, context.retryBaseMs),
      request.signal,
    );
  }
}

/** Counts the request from its answer: a burst can reach the server well after it left. */
async function answered(context: HttpContext, op: Operation, takenAt: number): Promise<void> {
  try {
    await context.gate.answered(context.keyId, op, takenAt);
  } catch (error) {
    context.onBudgetError?.(error);
  }
}

type Outcome =
  | { readonly ok: true; readonly body: unknown }
  | {
      readonly ok: false;
      readonly error: TtsError;
      readonly sent: boolean;
      readonly retryAfterMs?: number | undefined;
    };

async function send(context: HttpContext, request: ApiRequest): Promise<Outcome> {
  const url = new URL(`${context.baseUrl.replace(/\/+$/, '')}${request.path}`);
  for (const [name, value] of Object.entries(request.query ?? {})) {
    url.searchParams.set(name, value);
  }
  const timeout = AbortSignal.timeout(context.timeoutMs);
  const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
  let headers: Headers;
  try {
    headers = new Headers({ 'x-api-key': context.apiKey, accept: 'application/json' });
  } catch {
    // The header error quotes the value it refused, which is the key: keep no cause.
    return { ok: false, sent: false, error: unsendableKeyError() };
  }
  if (request.body !== undefined) headers.set('content-type', 'application/json');
  const where = `${request.method} ${url.pathname}`;
  const maxBytes = context.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  let response: Response;
  let text: string | undefined;
  try {
    response = await context.fetch(url, {
      method: request.method,
      headers,
      body: request.body === undefined ? null : JSON.stringify(request.body),
      signal,
      redirect: 'error',
    });
    text = await readCapped(response, maxBytes);
  } catch (error) {
    if (request.signal?.aborted) throw request.signal.reason;
    // Only a header check quotes the key; such an error must never reach a log as a cause.
    if (quotesKey(error, context.apiKey)) {
      return { ok: false, sent: false, error: unsendableKeyError() };
    }
    if (timeout.aborted) {
      const message = `${where} got no answer within ${context.timeoutMs} ms`;
      return { ok: false, sent: true, error: new TtsError('timeout', message, { cause: error }) };
    }
    const code = networkCode(error);
    const reason = (code && NETWORK_REASONS[code]) ?? 'network error';
    const message = `${where} failed: ${reason}${code ? ` (${code})` : ''}`;
    const sent = code === undefined || !NOT_SENT_CODES.has(code);
    return { ok: false, sent, error: new TtsError('network', message, { cause: error }) };
  }
  if (text === undefined) {
    const message = `${where} answered more than ${maxBytes} bytes`;
    const error = response.ok
      ? new TtsError('malformed_response', message, { status: response.status })
      : errorForStatus(response.status, undefined);
    return { ok: false, sent: true, error, retryAfterMs: retryAfter(response.headers) };
  }
  const body = parseJson(text);
  if (response.ok) {
    if (body === undefined) {
      const error = new TtsError('malformed_response', `${where} answered with invalid JSON`, {
        status: response.status,
      });
      return { ok: false, sent: true, error };
    }
    return { ok: true, body };
  }
  const detail = describeDetail(body);
  const error = errorForStatus(
    response.status,
    detail === undefined ? undefined : serviceText(detail, context.apiKey),
  );
  return { ok: false, sent: true, error, retryAfterMs: retryAfter(response.headers) };
}

const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;

/** The body as text, or undefined (and the connection released) once it passes `maxBytes`. */
async function readCapped(response: Response, maxBytes: number): Promise<string | undefined> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes || response.body === null) {
    await response.body?.cancel();
    return response.body === null ? '' : undefined;
  }
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** True when any message in the error's cause chain contains the key. */
function quotesKey(error: unknown, apiKey: string): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current !== undefined && current !== null; depth++) {
    const text = current instanceof Error ? `${current.message} ${current.stack}` : String(current);
    if (text.includes(apiKey)) return true;
    current = current instanceof Error ? current.cause : undefined;
  }
  return false;
}

function networkCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = current.cause;
  }
  return undefined;
}

/** `Retry-After` in seconds or as an HTTP date, capped to a minute. */
function retryAfter(headers: Headers): number | undefined {
  const value = headers.get('retry-after');
  if (value === null) return undefined;
  const seconds = Number(value);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - Date.now();
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 0), 60_000) : undefined;
}
