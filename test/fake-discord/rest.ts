/** The fake REST API under `/api/v10`, plus attachment downloads under `/attachments`. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CommandStore } from './commands.ts';
import { apiError, type Interactions, type RestReply } from './interactions.ts';
import type { MessageStore } from './messages.ts';
import { parseBody, readRaw } from './multipart.ts';
import type { Json, ReceivedFile, RecordedRequest } from './types.ts';
import { Permission, type World } from './world.ts';

/** What the REST side reads and writes. */
export interface RestContext {
  world: World;
  token: string;
  gatewayUrl: () => string;
  commands: CommandStore;
  messages: MessageStore;
  interactions: () => Interactions;
  requests: RecordedRequest[];
  uploadLimitBytes: number;
  /** The bot posted to a channel: tell the gateway. */
  messageCreated: (message: Json) => void;
}

interface Call {
  params: Record<string, string>;
  body: Json;
  files: ReceivedFile[];
  query: Record<string, string>;
}

type Handler = (call: Call, context: RestContext) => RestReply;

const ok = (body: unknown): RestReply => ({ status: 200, body });
const NOT_FOUND = apiError(404, '404: Not Found', 0);
const UNAUTHORIZED = apiError(401, '401: Unauthorized', 0);

/** Routes that are called without the bot token, as discord.js does. */
const UNAUTHENTICATED = [
  /^\/webhooks\//,
  /^\/interactions\/[^/]+\/[^/]+\/callback$/,
  /^\/gateway$/,
];

const routes: Array<[method: string, pattern: string, handler: Handler]> = [
  ['GET', '/gateway', (_, c) => ok({ url: c.gatewayUrl() })],
  [
    'GET',
    '/gateway/bot',
    (_, c) =>
      ok({
        url: c.gatewayUrl(),
        shards: c.world.shardCount,
        session_start_limit: { total: 1000, remaining: 1000, reset_after: 0, max_concurrency: 1 },
      }),
  ],
  ['GET', '/users/@me', (_, c) => ok(c.world.bot)],
  ['GET', '/applications/@me', (_, c) => ok(application(c.world))],
  ['GET', '/oauth2/applications/@me', (_, c) => ok(application(c.world))],
  ['GET', '/applications/:app/commands', (call, c) => commands(call, c, 'GET')],
  ['PUT', '/applications/:app/commands', (call, c) => commands(call, c, 'PUT')],
  ['POST', '/applications/:app/commands', (call, c) => commands(call, c, 'POST')],
  ['GET', '/applications/:app/commands/:command', (call, c) => commands(call, c, 'GET')],
  ['PATCH', '/applications/:app/commands/:command', (call, c) => commands(call, c, 'PATCH')],
  ['DELETE', '/applications/:app/commands/:command', (call, c) => commands(call, c, 'DELETE')],
  ['GET', '/applications/:app/guilds/:guild/commands', (call, c) => commands(call, c, 'GET')],
  ['PUT', '/applications/:app/guilds/:guild/commands', (call, c) => commands(call, c, 'PUT')],
  ['POST', '/applications/:app/guilds/:guild/commands', (call, c) => commands(call, c, 'POST')],
  [
    'GET',
    '/applications/:app/guilds/:guild/commands/:command',
    (call, c) => commands(call, c, 'GET'),
  ],
  [
    'PATCH',
    '/applications/:app/guilds/:guild/commands/:command',
    (call, c) => commands(call, c, 'PATCH'),
  ],
  [
    'DELETE',
    '/applications/:app/guilds/:guild/commands/:command',
    (call, c) => commands(call, c, 'DELETE'),
  ],
  [
    'POST',
    '/interactions/:id/:token/callback',
    ({ params, body, files, query }, c) =>
      c
        .interactions()
        .callback(params.id ?? '', params.token ?? '', body, files, query.with_response === 'true'),
  ],
  ['POST', '/webhooks/:app/:token', (call, c) => webhook('POST', call, c)],
  ['GET', '/webhooks/:app/:token/messages/:message', (call, c) => webhook('GET', call, c)],
  ['PATCH', '/webhooks/:app/:token/messages/:message', (call, c) => webhook('PATCH', call, c)],
  ['DELETE', '/webhooks/:app/:token/messages/:message', (call, c) => webhook('DELETE', call, c)],
  [
    'GET',
    '/channels/:channel',
    ({ params }, c) => found(c.world.channel(params.channel ?? '')?.channel),
  ],
  ['POST', '/channels/:channel/typing', () => ({ status: 204 })],
  ['POST', '/channels/:channel/messages', postChannelMessage],
  [
    'GET',
    '/channels/:channel/messages',
    ({ params }, c) => ok(c.messages.inChannel(params.channel ?? '').reverse()),
  ],
  [
    'GET',
    '/channels/:channel/messages/:message',
    ({ params }, c) => found(channelMessage(params, c)),
  ],
  [
    'PATCH',
    '/channels/:channel/messages/:message',
    ({ params, body, files }, c) => {
      const message = channelMessage(params, c);
      return message
        ? ok(c.messages.edit(message.id, body, files))
        : apiError(404, 'Unknown Message', 10008);
    },
  ],
  [
    'DELETE',
    '/channels/:channel/messages/:message',
    ({ params }, c) => {
      const message = channelMessage(params, c);
      return message && c.messages.delete(message.id)
        ? { status: 204 }
        : apiError(404, 'Unknown Message', 10008);
    },
  ],
  [
    'GET',
    '/guilds/:guild',
    ({ params }, c) => guildJson(params, c, (g) => c.world.guildCreate(g, false)),
  ],
  ['GET', '/guilds/:guild/channels', ({ params }, c) => guildJson(params, c, (g) => g.channels)],
  ['GET', '/guilds/:guild/roles', ({ params }, c) => guildJson(params, c, (g) => g.roles)],
  [
    'GET',
    '/guilds/:guild/members/:user',
    ({ params }, c) =>
      guildJson(params, c, (g) =>
        g.memberRoles.has(params.user ?? '') ? c.world.member(g, params.user ?? '') : undefined,
      ),
  ],
];

/** Starts the HTTP server on 127.0.0.1 with a free port. */
export async function startRest(
  context: RestContext,
): Promise<{ server: Server; baseUrl: string }> {
  const server = createServer((request, response) => {
    handle(request, response, context).catch((error: unknown) => {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ message: `fake-discord: ${String(error)}`, code: 0 }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, baseUrl: `http://127.0.0.1:${port}` };
}

async function handle(
  request: IncomingMessage,
  response: ServerResponse,
  context: RestContext,
): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://127.0.0.1');
  const method = request.method ?? 'GET';
  const raw = await readRaw(request);
  if (url.pathname.startsWith('/attachments/')) return serveAttachment(url, response, context);
  const route = url.pathname
    .replace(/^\/api\/v10(?=\/)/, '')
    .split('/')
    .map((segment) => decodeURIComponent(segment))
    .join('/');
  const query = Object.fromEntries(url.searchParams);
  let body: unknown;
  let files: ReceivedFile[] = [];
  let reply: RestReply;
  try {
    ({ json: body, files } = await parseBody(raw, request.headers['content-type']));
    const uploaded = files.reduce((sum, file) => sum + file.data.length, 0);
    reply =
      uploaded > context.uploadLimitBytes
        ? apiError(413, 'Request entity too large', 40005)
        : dispatch(method, route, request, { body, files, query }, context);
  } catch (error) {
    reply = apiError(400, `400: Bad Request (${String(error)})`, 0);
  }
  context.requests.push({ method, route, query, body, files, status: reply.status });
  const headers = reply.body === undefined ? {} : { 'content-type': 'application/json' };
  response.writeHead(reply.status, headers);
  response.end(reply.body === undefined ? undefined : JSON.stringify(reply.body));
}

function dispatch(
  method: string,
  route: string,
  request: IncomingMessage,
  input: { body: unknown; files: ReceivedFile[]; query: Record<string, string> },
  context: RestContext,
): RestReply {
  if (!request.url?.startsWith('/api/v10/')) return NOT_FOUND;
  const open = UNAUTHENTICATED.some((pattern) => pattern.test(route));
  if (!open && request.headers.authorization !== `Bot ${context.token}`) return UNAUTHORIZED;
  const segments = route.split('/');
  for (const [routeMethod, pattern, handler] of routes) {
    if (routeMethod !== method) continue;
    const params = match(pattern, segments);
    if (params) {
      const body = (input.body ?? {}) as Json;
      return handler({ params, body, files: input.files, query: input.query }, context);
    }
  }
  return NOT_FOUND;
}

function match(pattern: string, segments: string[]): Record<string, string> | undefined {
  const parts = pattern.split('/');
  if (parts.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (const [index, part] of parts.entries()) {
    const segment = segments[index] ?? '';
    if (part.startsWith(':')) params[part.slice(1)] = segment;
    else if (part !== segment) return undefined;
  }
  return params;
}

function serveAttachment(url: URL, response: ServerResponse, context: RestContext): void {
  const id = url.pathname.split('/')[3] ?? '';
  const file = context.messages.file(id);
  response.writeHead(file ? 200 : 404, { 'content-type': file?.contentType ?? 'text/plain' });
  response.end(file?.data ?? 'not found');
}

function found(value: unknown): RestReply {
  return value === undefined ? NOT_FOUND : ok(value);
}

function application(world: World): Json {
  return {
    id: world.applicationId,
    name: world.bot.username,
    flags: 0,
    bot_public: true,
    description: '',
  };
}

function commands({ params, body }: Call, context: RestContext, method: string): RestReply {
  if (params.app !== context.world.applicationId) return apiError(403, 'Missing Access', 50001);
  const guildId = params.guild;
  if (guildId !== undefined && !context.world.guilds.some((g) => g.id === guildId)) {
    return apiError(404, 'Unknown Guild', 10004);
  }
  const store = context.commands;
  if (method === 'PUT') {
    return Array.isArray(body)
      ? ok(store.put(guildId, body as Json[]))
      : apiError(400, 'Invalid Form Body', 50035);
  }
  if (method === 'POST') return { status: 201, body: store.create(guildId, body) };
  const id = params.command;
  if (method === 'GET' && id === undefined) return ok(store.list(guildId));
  const current = store.list(guildId).find((command) => command.id === id);
  if (!current || id === undefined) return apiError(404, 'Unknown application command', 10063);
  if (method === 'GET') return ok(current);
  if (method === 'PATCH') return ok(store.edit(guildId, id, body));
  store.remove(guildId, id);
  return { status: 204 };
}

function webhook(
  method: string,
  { params, body, files, query }: Call,
  context: RestContext,
): RestReply {
  return context
    .interactions()
    .webhook(method, params.app ?? '', params.token ?? '', params.message, {
      body,
      files,
      wait: query.wait === 'true',
    });
}

function postChannelMessage({ params, body, files }: Call, context: RestContext): RestReply {
  const found = context.world.channel(params.channel ?? '');
  if (!found) return apiError(404, 'Unknown Channel', 10003);
  const { guild, channel } = found;
  const bits = context.world.permissions(guild, context.world.bot.id);
  const needed =
    Permission.ViewChannel |
    Permission.SendMessages |
    (files.length > 0 ? Permission.AttachFiles : 0n);
  if (channel.type !== 0 || (bits & needed) !== needed)
    return apiError(403, 'Missing Permissions', 50013);
  const message = context.messages.create({
    channelId: String(channel.id),
    guildId: guild.id,
    author: context.world.bot,
    data: body,
    files,
    type: 0,
  });
  context.messageCreated(message);
  return ok(message);
}

function channelMessage(params: Record<string, string>, context: RestContext) {
  const message = context.messages.get(params.message ?? '');
  return message?.channel_id === params.channel ? message : undefined;
}

function guildJson(
  params: Record<string, string>,
  context: RestContext,
  pick: (guild: ReturnType<World['guild']>) => unknown,
): RestReply {
  const guild = context.world.guilds.find((g) => g.id === params.guild);
  return guild ? found(pick(guild)) : apiError(404, 'Unknown Guild', 10004);
}
