/** The API server: routing, auth, rate limits, faults and the four endpoint groups. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Core } from './core.ts';
import { type EndpointName, SERVER_ERROR_DETAIL } from './faults.ts';
import { readBody, sendJson, sendRaw } from './http.ts';
import type { LimitGroup } from './limits.ts';
import type { EmulatorUser } from './options.ts';
import { statusView } from './store.ts';
import { costOf, fieldError, fieldErrors, validateTts } from './validate.ts';
import { isModel, PRESET_VOICES } from './voices.ts';

interface Route {
  name: EndpointName;
  group: LimitGroup;
}

const ROUTES: Record<string, { method: string; route: Route }> = {
  '/v2/tts': { method: 'POST', route: { name: 'POST /v2/tts', group: 'tts' } },
  '/v2/status': { method: 'GET', route: { name: 'GET /v2/status', group: 'status' } },
  '/v2/voices': { method: 'GET', route: { name: 'GET /v2/voices', group: 'voices' } },
  '/': { method: 'GET', route: { name: 'GET /', group: 'health' } },
  '/v2/': { method: 'GET', route: { name: 'GET /v2/', group: 'health' } },
  '/health': { method: 'GET', route: { name: 'GET /health', group: 'health' } },
};

/** Builds the request listener of the API server. */
export function apiHandler(core: Core): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    handle(core, req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { detail: 'Internal Server Error' });
      else res.destroy(error instanceof Error ? error : undefined);
    });
  };
}

async function handle(core: Core, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://emulator');
  const entry = ROUTES[url.pathname];
  const route = entry && entry.method === req.method ? entry.route : undefined;
  const at = core.options.now();
  let userId: string | undefined;
  const record = (status: number): void => {
    const done = { at, doneAt: core.options.now(), method: req.method ?? '', path: req.url ?? '' };
    core.stats.record({
      ...done,
      endpoint: route?.name ?? 'other',
      status,
      ...(userId ? { userId } : {}),
    });
  };
  let recorded = false;
  res.on('close', () => {
    if (!recorded) record(res.writableFinished ? res.statusCode : 0);
    recorded = true;
  });

  const body = await readBody(req);
  if (!route) {
    if (entry) sendJson(res, 405, { detail: 'Method Not Allowed' });
    else sendJson(res, 404, { detail: 'Generation not found' });
    return;
  }
  const delay = core.faults.takeRequest(route.name, ['delay']);
  if (delay?.kind === 'delay' && !(await core.scheduler.sleep(delay.ms))) return;
  if (core.faults.takeRequest(route.name, ['drop'])) {
    req.socket.destroy();
    return;
  }

  const apiKey = headerValue(req.headers['x-api-key']);
  const user = core.userByKey(apiKey);
  if (route.group !== 'health' && !user) {
    sendJson(res, 401, { detail: 'Invalid API Key' });
    return;
  }
  userId = user?.userId;
  const limitKey = apiKey ?? `address:${req.socket.remoteAddress ?? ''}`;
  const hit = core.limiter.hit(limitKey, route.group);
  if (!hit.ok) {
    const headers: Record<string, string> = core.options.retryAfter
      ? { 'retry-after': String(Math.max(1, Math.ceil(hit.retryAfterMs / 1000))) }
      : {};
    sendJson(res, 429, { detail: 'Too Many Requests', error: hit.limit.label }, headers);
    return;
  }

  const fault = core.faults.takeRequest(route.name, ['http-error', 'malformed']);
  if (fault?.kind === 'http-error') {
    sendJson(res, fault.status ?? 500, fault.body ?? { detail: SERVER_ERROR_DETAIL });
    return;
  }
  if (fault?.kind === 'malformed') {
    sendRaw(res, 200, '{"detail": "ok", "generation_id": "base_', 'application/json');
    return;
  }

  if (route.group === 'health' || !user) {
    sendJson(res, 200, { status: 'ok' });
  } else if (route.group === 'tts') {
    submit(core, user, body, res);
  } else if (route.group === 'status') {
    status(core, user, url, res);
  } else {
    voices(user, url, res);
  }
}

function submit(
  core: Core,
  user: EmulatorUser,
  raw: Buffer | undefined,
  res: ServerResponse,
): void {
  if (raw === undefined) {
    sendJson(res, 413, { detail: 'Request Entity Too Large' });
    return;
  }
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch (error) {
    const msg = `JSON decode error: ${error instanceof Error ? error.message : 'invalid JSON'}`;
    sendJson(res, 400, fieldErrors([fieldError(['body', 0], 'json_invalid', msg, {})]).body);
    return;
  }
  const checked = validateTts(body, user);
  if ('status' in checked) {
    sendJson(res, checked.status, checked.body);
    return;
  }
  if (!core.charge(user.userId, costOf(checked))) {
    sendJson(res, 402, { detail: 'Insufficient Balance' });
    return;
  }
  const gen = core.submit(user, checked);
  const idField = core.options.idField;
  const answer: Record<string, string> = {};
  if (idField !== 'id') answer.generation_id = gen.id;
  if (idField !== 'generation_id') answer.id = gen.id;
  sendJson(res, core.options.submitStatus, answer);
}

function status(core: Core, user: EmulatorUser, url: URL, res: ServerResponse): void {
  const id = url.searchParams.get('generation_id');
  if (!id) {
    sendJson(
      res,
      400,
      fieldErrors([fieldError(['query', 'generation_id'], 'missing', 'Field required', null)]).body,
    );
    return;
  }
  const gen = core.store.get(id);
  if (!gen) {
    sendJson(res, 404, { detail: 'Generation not found' });
  } else if (gen.userId !== user.userId) {
    sendJson(res, 403, { detail: 'Access denied for this generation' });
  } else {
    const audioUrl = gen.status === 'Completed' ? core.audioUrl(gen.id) : null;
    sendJson(res, 200, statusView(gen, audioUrl, core.options.urlField));
  }
}

function voices(user: EmulatorUser, url: URL, res: ServerResponse): void {
  const model = url.searchParams.get('model');
  if (model === null) {
    sendJson(
      res,
      400,
      fieldErrors([fieldError(['query', 'model'], 'missing', 'Field required', null)]).body,
    );
    return;
  }
  if (!isModel(model)) {
    const msg = "Input should be 'base' or 'advance'";
    sendJson(
      res,
      400,
      fieldErrors([fieldError(['query', 'model'], 'literal_error', msg, model)]).body,
    );
    return;
  }
  const custom = model === 'advance' ? (user.customVoices ?? []) : [];
  sendJson(res, 200, { user_id: user.userId, model, voices: [...PRESET_VOICES[model], ...custom] });
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
