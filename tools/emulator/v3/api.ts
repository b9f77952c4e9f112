/** The v3 HTTP endpoints: routing, auth, the per-key window, faults, and the four handlers. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type EndpointName, SERVER_ERROR_DETAIL } from '../faults.ts';
import { readBody, sendJson, sendRaw } from '../http.ts';
import type { EmulatorUser } from '../options.ts';
import { isV3Model, page, voicesOf } from './catalog.ts';
import type { V3Core } from './core.ts';
import { limitHeaders, rateLimitDetail } from './limits.ts';
import { historyView, recordView, V3_HISTORY_STATUSES, type V3Generation } from './records.ts';
import {
  choiceParam,
  intParam,
  languageCodeIn,
  type V3Refusal,
  validateV3,
  validationError,
} from './validate.ts';

const ROUTES: Record<string, Partial<Record<string, EndpointName>>> = {
  '/v3/tts': { POST: 'POST /v3/tts', GET: 'GET /v3/tts' },
  '/v3/voices': { GET: 'GET /v3/voices' },
  '/v3/history': { GET: 'GET /v3/history' },
};

/** Text of every 401 (`guides/authentication.mdx`). */
export const INVALID_KEY = 'Invalid or missing API key';

/** Whether a request path belongs to v3. */
export function isV3Path(url: string | undefined): boolean {
  return url === '/v3' || (url ?? '').startsWith('/v3/') || (url ?? '').startsWith('/v3?');
}

/** A request path fit for the log: a key sent in the query is replaced. */
export function redactPath(url: string): string {
  return url.replace(/([?&]api_key=)[^&#]*/gi, '$1<redacted>');
}

/** The API key of a request: `x-api-key`, or `Authorization: Bearer`. */
export function keyOf(req: IncomingMessage): string | undefined {
  const header = req.headers['x-api-key'];
  const key = Array.isArray(header) ? header[0] : header;
  if (key) return key;
  const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  return bearer?.[1];
}

/** Builds the listener for `/v3/...` requests on the API server. */
export function v3Handler(v3: V3Core): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    handle(v3, req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { detail: 'Internal Server Error' });
      else res.destroy(error instanceof Error ? error : undefined);
    });
  };
}

async function handle(v3: V3Core, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { core } = v3;
  const url = new URL(req.url ?? '/', 'http://emulator');
  const methods = ROUTES[url.pathname];
  const endpoint = methods?.[req.method ?? ''];
  const at = core.options.now();
  let userId: string | undefined;
  let languageCode: string | undefined;
  res.on('close', () => {
    core.stats.record({
      at,
      doneAt: core.options.now(),
      method: req.method ?? '',
      path: redactPath(req.url ?? ''),
      endpoint: endpoint ?? 'other',
      status: res.writableFinished ? res.statusCode : 0,
      ...(userId ? { userId } : {}),
      ...(languageCode === undefined ? {} : { languageCode }),
    });
  });
  const body = await readBody(req);
  if (endpoint === 'POST /v3/tts') languageCode = languageCodeIn(parsedOrUndefined(body));
  if (!endpoint) {
    sendJson(res, methods ? 405 : 404, { detail: methods ? 'Method Not Allowed' : 'Not Found' });
    return;
  }
  const delay = core.faults.takeRequest(endpoint, ['delay']);
  if (delay?.kind === 'delay' && !(await core.scheduler.sleep(delay.ms))) return;
  if (core.faults.takeRequest(endpoint, ['drop'])) {
    req.socket.destroy();
    return;
  }
  const apiKey = keyOf(req);
  const user = core.userByKey(apiKey);
  if (!user || apiKey === undefined) {
    sendJson(res, 401, { detail: INVALID_KEY });
    return;
  }
  userId = user.userId;
  const window = v3.take(apiKey, user);
  const headers = limitHeaders(window);
  if (!window.ok) {
    sendJson(res, 429, { detail: rateLimitDetail(window.retryAfterMs) }, headers);
    return;
  }
  const fault = core.faults.takeRequest(endpoint, ['http-error', 'malformed']);
  if (fault?.kind === 'http-error') {
    sendJson(res, fault.status ?? 500, fault.body ?? { detail: SERVER_ERROR_DETAIL }, headers);
    return;
  }
  if (fault?.kind === 'malformed') {
    sendRaw(res, 200, '{"generation_id": "gen_', 'application/json', headers);
    return;
  }
  const answer = (status: number, json: unknown): void => sendJson(res, status, json, headers);
  if (endpoint === 'POST /v3/tts') submit(v3, user, body, answer);
  else if (endpoint === 'GET /v3/tts') status(v3, user, url, answer);
  else if (endpoint === 'GET /v3/voices') voices(user, url, answer);
  else history(v3, user, url, answer);
}

type Answer = (status: number, json: unknown) => void;

/** A body as JSON, for the request log; undefined when it is none (the submit refuses it). */
function parsedOrUndefined(raw: Buffer | undefined): unknown {
  if (raw === undefined) return undefined;
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch (error) {
    if (error instanceof SyntaxError) return undefined;
    throw error;
  }
}

function refuse(answer: Answer, refusal: V3Refusal): void {
  const { status, ...json } = refusal;
  answer(status, json);
}

function submit(v3: V3Core, user: EmulatorUser, raw: Buffer | undefined, answer: Answer): void {
  if (raw === undefined) {
    answer(413, { detail: 'Request Entity Too Large' });
    return;
  }
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    refuse(answer, {
      status: 400,
      detail: 'Validation error',
      errors: [{ field: 'body', message: 'Invalid JSON' }],
    });
    return;
  }
  const request = validateV3(body, user);
  if ('detail' in request) {
    refuse(answer, request);
    return;
  }
  const gen = v3.admit(user, request, 'http');
  if ('detail' in gen) {
    refuse(answer, gen);
    return;
  }
  void v3.run(gen, request);
  answer(200, recordView(gen, null));
}

function view(v3: V3Core, gen: V3Generation): Record<string, unknown> {
  return recordView(gen, gen.status === 'COMPLETED' ? v3.audioUrl(gen) : null);
}

function status(v3: V3Core, user: EmulatorUser, url: URL, answer: Answer): void {
  const id = url.searchParams.get('generation_id');
  if (!id) {
    const errors = [{ field: 'generation_id', message: 'generation_id is required' }];
    refuse(answer, { status: 422, detail: 'Validation error', errors });
    return;
  }
  const gen = v3.store.get(id);
  // Another account's id is "not found" in v3 (v2 answered 403).
  if (!gen || gen.userId !== user.userId) answer(404, { detail: 'Generation not found' });
  else answer(200, view(v3, gen));
}

function voices(user: EmulatorUser, url: URL, answer: Answer): void {
  const errors: { field: string; message: string }[] = [];
  const model = choiceParam(url, 'model', ['base', 'advanced'] as const, errors);
  const limit = intParam(url, 'limit', 100, 1, 500, errors);
  const offset = intParam(url, 'offset', 0, 0, Number.MAX_SAFE_INTEGER, errors);
  const refused = validationError(422, errors);
  if (refused) {
    refuse(answer, refused);
    return;
  }
  const all = voicesOf(user).filter((v) => !isV3Model(model) || v.model === model);
  const { items, ...paging } = page(all, limit, offset);
  answer(200, { ...paging, voices: items });
}

function history(v3: V3Core, user: EmulatorUser, url: URL, answer: Answer): void {
  const errors: { field: string; message: string }[] = [];
  const status = choiceParam(url, 'status', V3_HISTORY_STATUSES, errors);
  const limit = intParam(url, 'limit', 20, 1, 100, errors);
  const offset = intParam(url, 'offset', 0, 0, Number.MAX_SAFE_INTEGER, errors);
  const refused = validationError(422, errors);
  if (refused) {
    refuse(answer, refused);
    return;
  }
  const { items, ...paging } = page(v3.store.historyOf(user.userId, status), limit, offset);
  const rows = items.map((gen) => {
    const shown = v3.store.shownStatus(gen);
    return historyView(gen, shown, shown === 'COMPLETED' ? v3.audioUrl(gen) : null);
  });
  answer(200, { ...paging, history: rows });
}
