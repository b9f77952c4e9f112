/** The fake gateway: HELLO, IDENTIFY/RESUME, heartbeats and dispatches over plain ws:// JSON. */
import type { AddressInfo } from 'node:net';
import { type RawData, type WebSocket, WebSocketServer } from 'ws';
import type { Json } from './types.ts';
import { randomToken } from './world.ts';

/** Gateway intent bits the fake honours. */
export const Intent = {
  Guilds: 1 << 0,
  GuildMembers: 1 << 1,
  GuildVoiceStates: 1 << 7,
  GuildMessages: 1 << 9,
  MessageContent: 1 << 15,
} as const;

/** One bot session; the socket changes when the bot resumes. */
export interface GatewaySession {
  id: string;
  intents: number;
  seq: number;
  socket: WebSocket | undefined;
}

/** What the gateway asks of the rest of the fake. */
export interface GatewayHooks {
  token: string;
  heartbeatIntervalMs: number;
  /** Intents refused with close code 4014 (Disallowed intent(s)). */
  disallowedIntents?: number;
  /** READY and the GUILD_CREATE payloads for a freshly identified session. */
  identify(session: GatewaySession): { ready: Json; guilds: Json[] };
  /** Op 4 from the bot. */
  voiceStateUpdate(session: GatewaySession, data: Json): void;
  /** Op 8 from the bot: answer with GUILD_MEMBERS_CHUNK dispatches. */
  requestMembers(session: GatewaySession, data: Json): void;
}

/** The gateway websocket server on 127.0.0.1. */
export class Gateway {
  readonly url: string;
  readonly #server: WebSocketServer;
  readonly #hooks: GatewayHooks;
  readonly #sessions = new Map<string, GatewaySession>();

  private constructor(server: WebSocketServer, hooks: GatewayHooks) {
    this.#server = server;
    this.#hooks = hooks;
    const { port } = server.address() as AddressInfo;
    this.url = `ws://127.0.0.1:${port}`;
    server.on('connection', (socket) => this.#accept(socket));
  }

  /** Listens on a free port. */
  static async start(hooks: GatewayHooks): Promise<Gateway> {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve);
      server.once('error', reject);
    });
    return new Gateway(server, hooks);
  }

  /** Sessions with an open socket. */
  connected(): GatewaySession[] {
    return [...this.#sessions.values()].filter((s) => s.socket !== undefined);
  }

  /** Sends a dispatch to every connected session whose intents include `intent` (if given). */
  dispatch(type: string, data: unknown, intent?: number): void {
    for (const session of this.connected()) {
      if (intent === undefined || session.intents & intent) this.send(session, type, data);
    }
  }

  /** Sends one dispatch to one session with the next sequence number. */
  send(session: GatewaySession, type: string, data: unknown): void {
    session.seq += 1;
    session.socket?.send(JSON.stringify({ op: 0, t: type, s: session.seq, d: data }));
  }

  /** Drops every socket and stops listening. */
  async close(): Promise<void> {
    for (const socket of this.#server.clients) socket.terminate();
    await new Promise<void>((resolve, reject) =>
      this.#server.close((error) => (error ? reject(error) : resolve())),
    );
  }

  #accept(socket: WebSocket): void {
    let session: GatewaySession | undefined;
    const raw = (op: number, d: unknown) =>
      socket.send(JSON.stringify({ op, d, s: null, t: null }));
    raw(10, { heartbeat_interval: this.#hooks.heartbeatIntervalMs });
    socket.on('close', () => {
      if (session?.socket === socket) session.socket = undefined;
    });
    socket.on('message', (data: RawData) => {
      let payload: { op?: unknown; d?: unknown };
      try {
        payload = JSON.parse(String(data));
      } catch {
        socket.close(4002, 'Error while decoding payload.');
        return;
      }
      const d = (payload.d ?? {}) as Json;
      if (payload.op === 1) return raw(11, null);
      if (payload.op === 2) {
        session = this.#identify(socket, d);
        return;
      }
      if (payload.op === 6) {
        session = this.#resume(socket, d, raw);
        return;
      }
      if (!session) return socket.close(4003, 'Not authenticated.');
      if (payload.op === 4) return this.#hooks.voiceStateUpdate(session, d);
      if (payload.op === 8) return this.#hooks.requestMembers(session, d);
      if (payload.op === 3) return;
      socket.close(4001, 'Unknown opcode.');
    });
  }

  #identify(socket: WebSocket, d: Json): GatewaySession | undefined {
    if (d.token !== this.#hooks.token) {
      socket.close(4004, 'Authentication failed.');
      return undefined;
    }
    if (Number(d.intents ?? 0) & (this.#hooks.disallowedIntents ?? 0)) {
      socket.close(4014, 'Disallowed intent(s).');
      return undefined;
    }
    const session: GatewaySession = {
      id: randomToken(16),
      intents: Number(d.intents ?? 0),
      seq: 0,
      socket,
    };
    this.#sessions.set(session.id, session);
    const { ready, guilds } = this.#hooks.identify(session);
    this.send(session, 'READY', {
      ...ready,
      session_id: session.id,
      resume_gateway_url: this.url,
    });
    for (const guild of guilds) this.send(session, 'GUILD_CREATE', guild);
    return session;
  }

  #resume(
    socket: WebSocket,
    d: Json,
    raw: (op: number, d: unknown) => void,
  ): GatewaySession | undefined {
    if (d.token !== this.#hooks.token) {
      socket.close(4004, 'Authentication failed.');
      return undefined;
    }
    const session = this.#sessions.get(String(d.session_id));
    if (!session) {
      raw(9, false);
      return undefined;
    }
    session.socket?.terminate();
    session.socket = socket;
    this.send(session, 'RESUMED', null);
    return session;
  }
}
