/**
 * Why a v3 stream ended before `completed`, as a TtsError: the upgrade's refusal, the service's
 * `error` frame and close code, or the socket's failure in plain words (its own message may quote
 * the address, key included, so it is never used).
 */
import { errorForStatus, TtsError, type TtsErrorKind } from '../errors.ts';

/** Close codes of the stream (`api-reference/streaming.mdx`). */
const CLOSE_INVALID_PAYLOAD = 1003;
const CLOSE_POLICY = 1008;
/** The close a completed stream ends with (the bot closes with it too). */
export const CLOSE_NORMAL = 1000;

/** How errors and messages name the stream. */
export const WHERE = 'the v3 stream';

/** Plain words for socket failures, by code; the socket's own message may quote the address. */
const REASONS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
  ECONNRESET: 'the connection was closed',
  ETIMEDOUT: 'could not connect in time',
};

/** What a stream saw before it ended without `completed`. */
export interface StreamEnd {
  /** The close code. */
  readonly code: number;
  readonly generationId: string | undefined;
  /** The upgrade's HTTP status when the server refused the socket. */
  readonly httpStatus: number | undefined;
  /** The service's words in an `error` frame, already cleaned (`serviceText`). */
  readonly errorText: string | undefined;
  /** The socket error's code (`ECONNREFUSED`, …). */
  readonly socketCode: string | undefined;
}

/** Why the stream ended before `completed`, from the error frame, close code or socket. */
export function streamFailure(end: StreamEnd): TtsError {
  const { code } = end;
  const context = end.generationId === undefined ? {} : { generationId: end.generationId };
  if (end.httpStatus !== undefined) {
    const refused = errorForStatus(end.httpStatus, undefined);
    return new TtsError(refused.kind, `${WHERE} was refused (HTTP ${end.httpStatus})`, {
      ...context,
      status: end.httpStatus,
    });
  }
  const said = end.errorText;
  if (said !== undefined) {
    return new TtsError(kindOfRefusal(code, said), `${WHERE} failed: ${said}`, context);
  }
  if (code === CLOSE_NORMAL) {
    return new TtsError('malformed_response', `${WHERE} closed without completing`, context);
  }
  const reason = (end.socketCode && REASONS[end.socketCode]) ?? 'the connection was cut';
  return new TtsError('network', `${WHERE} failed: ${reason} (close ${code})`, context);
}

/** The cause of an `error` frame, from its close code and words (the docs give no codes). */
export function kindOfRefusal(closeCode: number, text: string): TtsErrorKind {
  if (/rate limit|concurrent/i.test(text)) return 'rate_limited';
  if (closeCode === CLOSE_INVALID_PAYLOAD) {
    return /voice/i.test(text) ? 'invalid_voice' : 'bad_request';
  }
  if (closeCode === CLOSE_POLICY) {
    if (/api key/i.test(text)) return 'invalid_key';
    if (/balance/i.test(text)) return 'insufficient_balance';
    if (/plan/i.test(text)) return 'plan_required';
    if (/voice/i.test(text)) return 'invalid_voice';
    return 'access_denied';
  }
  return 'generation_failed';
}
