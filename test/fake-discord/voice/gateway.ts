import type { IncomingMessage } from 'node:http';
import type { RawData, WebSocket, WebSocketServer } from 'ws';
import { ENCRYPTION_MODE, newSecretKey } from './crypto.ts';
import {
  DAVE_PROTOCOL_VERSION,
  type DaveFaults,
  DaveGroup,
  DaveOp,
  type DaveOutgoing,
  isBinary,
} from './dave.ts';
import type { OpenSession } from './session.ts';

/** Voice gateway v8 opcodes the fake speaks. */
const Op = {
  Identify: 0,
  SelectProtocol: 1,
  Ready: 2,
  Heartbeat: 3,
  SessionDescription: 4,
  Speaking: 5,
  HeartbeatAck: 6,
  Resume: 7,
  Hello: 8,
  Resumed: 9,
  ClientsConnect: 11,
} as const;

/** Close codes Discord's voice gateway uses, as @discordjs/voice interprets them. */
export const VoiceCloseCode = {
  DecodeError: 4002,
  NotAuthenticated: 4003,
  AuthenticationFailed: 4004,
  SessionNoLongerValid: 4006,
  /** Kicked, moved or left: the library goes to Disconnected instead of resuming. */
  Disconnected: 4014,
  /** Voice server crashed: the library resumes. */
  ServerCrashed: 4015,
  UnknownEncryptionMode: 4016,
  /** The client did not offer DAVE where the server requires it. */
  DaveRequired: 4017,
  /** Rate limited: Discord says not to reconnect. */
  RateLimited: 4021,
  /** The call was terminated (full, or ended): Discord says not to reconnect. */
  CallTerminated: 4022,
} as const;

/** A Speaking (op 5) payload the bot sent, with the time it arrived. */
export interface SpeakingEvent {
  speaking: number;
  ssrc: number;
  delay: number;
  at: number;
}

/** One open voice websocket, as `connections()` reports it. */
export interface VoiceSocketInfo {
  /** Undefined until Identify or Resume named a valid session. */
  session: OpenSession | undefined;
  query: string;
  heartbeats: number;
  lastSeqAck: number | undefined;
  resumed: boolean;
  /** The `max_dave_protocol_version` of the socket's Identify; 0 before it. */
  offeredDave: number;
}

/** How the fake speaks DAVE; `undefined` in the host: DAVE version 0 (transport encryption only). */
export interface DaveSettings {
  /** Close with 4017 when the client does not offer DAVE, as Discord does since March 2026. */
  require: boolean;
  /** User ids of the listening members (davey sessions) added to every group. */
  memberIds: readonly string[];
}

/** What a voice websocket needs from the server around it. */
export interface VoiceGatewayHost {
  readonly heartbeatIntervalMs: number;
  udpPort(): number;
  sessionByToken(token: string): OpenSession | undefined;
  speaking(session: OpenSession, event: SpeakingEvent): void;
  /** Every open socket, kept up to date by the gateway. */
  readonly sockets: Map<WebSocket, VoiceSocketInfo>;
  readonly dave: DaveSettings | undefined;
  /** How long the fake waits after Session Description before it opens the DAVE handshake. */
  daveDelayMs(): number;
  /** The listening members present in a guild's voice channel now, for a new DAVE group. */
  daveMembers(guildId: string): readonly string[];
  /** Faults the fake injects into DAVE groups (shared, changed by tests). */
  readonly daveFaults: DaveFaults;
}

interface Packet {
  op: number;
  d: Record<string, unknown> | null;
}

/** Serves the voice gateway v8 on every websocket the server accepts. */
export function serveVoiceGateway(wss: WebSocketServer, host: VoiceGatewayHost): void {
  wss.on('connection', (ws: WebSocket, request: IncomingMessage) => {
    const info: VoiceSocketInfo = {
      session: undefined,
      query: new URL(request.url ?? '/', 'wss://127.0.0.1').search,
      heartbeats: 0,
      lastSeqAck: undefined,
      resumed: false,
      offeredDave: 0,
    };
    host.sockets.set(ws, info);
    ws.on('close', () => {
      host.sockets.delete(ws);
      info.session?.sockets.delete(ws);
    });
    ws.on('message', (data: RawData, isBinary: boolean) => {
      if (isBinary) onBinary(info, host, toBuffer(data));
      else onText(ws, info, host, data.toString());
    });
    // Discord greets every voice websocket with Hello, before Identify or Resume.
    send(ws, { op: Op.Hello, d: { heartbeat_interval: host.heartbeatIntervalMs } });
  });
}

function onText(ws: WebSocket, info: VoiceSocketInfo, host: VoiceGatewayHost, text: string): void {
  let packet: Packet;
  try {
    packet = JSON.parse(text) as Packet;
  } catch {
    ws.close(VoiceCloseCode.DecodeError, 'Failed to decode payload');
    return;
  }
  const d = packet.d ?? {};
  switch (packet.op) {
    case Op.Heartbeat:
      info.heartbeats += 1;
      if (typeof d.seq_ack === 'number') info.lastSeqAck = d.seq_ack;
      send(ws, { op: Op.HeartbeatAck, d: { t: d.t } });
      return;
    case Op.Identify:
      identify(ws, info, host, d);
      return;
    case Op.Resume:
      resume(ws, info, host, d);
      return;
    case DaveOp.TransitionReady:
    case DaveOp.InvalidCommitWelcome: {
      const session = info.session;
      const group = session?.dave;
      if (!session || !group) return;
      const id = Number(d.transition_id);
      const answers =
        packet.op === DaveOp.TransitionReady
          ? group.onTransitionReady(id)
          : group.onInvalidCommit(id);
      deliverDave(session, answers);
      return;
    }
  }
  const session = info.session;
  if (!session) {
    ws.close(VoiceCloseCode.NotAuthenticated, 'Not authenticated');
    return;
  }
  if (packet.op === Op.SelectProtocol) {
    const data = (d.data ?? {}) as Record<string, unknown>;
    if (data.mode !== ENCRYPTION_MODE) {
      ws.close(VoiceCloseCode.UnknownEncryptionMode, 'Unknown encryption mode');
      return;
    }
    session.secretKey = newSecretKey();
    const dave = host.dave && info.offeredDave >= DAVE_PROTOCOL_VERSION ? host.dave : undefined;
    session.daveSent.length = 0;
    session.dave = dave
      ? new DaveGroup(
          session.channelId,
          session.userId,
          host.daveMembers(session.guildId),
          host.daveFaults,
        )
      : undefined;
    sendSeq(ws, session, Op.SessionDescription, {
      mode: ENCRYPTION_MODE,
      secret_key: [...session.secretKey],
      audio_codec: 'opus',
      dave_protocol_version: session.dave ? DAVE_PROTOCOL_VERSION : 0,
    });
    const group = session.dave;
    if (group) {
      const open = (): void => {
        deliverDave(session, [{ op: Op.ClientsConnect, d: { user_ids: group.memberIds } }]);
        deliverDave(session, group.open());
      };
      const delay = host.daveDelayMs();
      if (delay > 0) setTimeout(open, delay).unref();
      else open();
    }
  } else if (packet.op === Op.Speaking) {
    host.speaking(session, {
      speaking: Number(d.speaking),
      ssrc: Number(d.ssrc),
      delay: Number(d.delay),
      at: Date.now(),
    });
  }
}

function identify(
  ws: WebSocket,
  info: VoiceSocketInfo,
  host: VoiceGatewayHost,
  d: Record<string, unknown>,
): void {
  const session = authenticate(ws, host, d);
  if (!session) return;
  if (d.user_id !== session.userId) {
    ws.close(VoiceCloseCode.AuthenticationFailed, 'Authentication failed');
    return;
  }
  info.offeredDave =
    typeof d.max_dave_protocol_version === 'number' ? d.max_dave_protocol_version : 0;
  if (host.dave?.require && info.offeredDave < DAVE_PROTOCOL_VERSION) {
    ws.close(VoiceCloseCode.DaveRequired, 'E2EE/DAVE protocol required');
    return;
  }
  attach(ws, info, session);
  sendSeq(ws, session, Op.Ready, {
    ssrc: session.ssrc,
    ip: '127.0.0.1',
    port: host.udpPort(),
    modes: [ENCRYPTION_MODE],
    experiments: [],
  });
}

function resume(
  ws: WebSocket,
  info: VoiceSocketInfo,
  host: VoiceGatewayHost,
  d: Record<string, unknown>,
): void {
  const session = authenticate(ws, host, d);
  if (!session) return;
  if (!session.secretKey) {
    ws.close(VoiceCloseCode.SessionNoLongerValid, 'Session is no longer valid');
    return;
  }
  if (typeof d.seq_ack === 'number') info.lastSeqAck = d.seq_ack;
  info.resumed = true;
  attach(ws, info, session);
  sendSeq(ws, session, Op.Resumed, null);
  // Discord's v8 resume is buffered: the DAVE messages the client had not acknowledged come again.
  const acked = typeof d.seq_ack === 'number' ? d.seq_ack : -1;
  for (const { seq, data } of session.daveSent) {
    if (seq > acked && ws.readyState === ws.OPEN) ws.send(data);
  }
}

/** Plays the MLS delivery service for the bot's binary messages (`u8 opcode ‖ payload`). */
function onBinary(info: VoiceSocketInfo, host: VoiceGatewayHost, data: Buffer): void {
  const session = info.session;
  const group = session?.dave;
  if (!session || !group || data.length < 1) return;
  const op = data.readUInt8(0);
  const payload = data.subarray(1);
  if (op === DaveOp.KeyPackage && group.formed) {
    // The bot reinitialised (after op 31): a member re-adds it, as slowly as a delayed handshake.
    const delay = host.daveDelayMs();
    const readd = (): void => deliverDave(session, group.onKeyPackage(payload));
    if (delay > 0) setTimeout(readd, delay).unref();
    else readd();
    return;
  }
  let answers: DaveOutgoing[] = [];
  if (op === DaveOp.KeyPackage) answers = group.onKeyPackage(payload);
  else if (op === DaveOp.CommitWelcome) answers = group.onCommitWelcome(payload);
  deliverDave(session, answers);
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

/** Finds the session of an Identify or Resume, or closes the socket with 4004. */
function authenticate(
  ws: WebSocket,
  host: VoiceGatewayHost,
  d: Record<string, unknown>,
): OpenSession | undefined {
  const session = typeof d.token === 'string' ? host.sessionByToken(d.token) : undefined;
  if (!session || d.server_id !== session.guildId || d.session_id !== session.sessionId) {
    ws.close(VoiceCloseCode.AuthenticationFailed, 'Authentication failed');
    return undefined;
  }
  return session;
}

function attach(ws: WebSocket, info: VoiceSocketInfo, session: OpenSession): void {
  info.session?.sockets.delete(ws);
  info.session = session;
  session.sockets.add(ws);
}

/** Sends a message carrying the session's next `seq`, which the library acks in heartbeats. */
function sendSeq(ws: WebSocket, session: OpenSession, op: number, d: unknown): void {
  session.seq += 1;
  send(ws, { op, d, seq: session.seq });
}

/**
 * Sends DAVE messages on the session's `seq` to its open websockets, and keeps them for a resume
 * (a message sent while the bot resumes reaches it in the replay). Binary ones are framed
 * `u16 seq ‖ u8 opcode ‖ payload`.
 */
export function deliverDave(session: OpenSession, messages: readonly DaveOutgoing[]): void {
  for (const message of messages) {
    session.seq += 1;
    let data: Buffer | string;
    if (isBinary(message)) {
      const header = Buffer.alloc(3);
      header.writeUInt16BE(session.seq & 0xffff, 0);
      header.writeUInt8(message.op, 2);
      data = Buffer.concat([header, message.payload]);
    } else {
      data = JSON.stringify({ op: message.op, d: message.d, seq: session.seq });
    }
    session.daveSent.push({ seq: session.seq, data });
    for (const ws of session.sockets) {
      if (ws.readyState === ws.OPEN) ws.send(data);
    }
  }
}

function send(ws: WebSocket, message: { op: number; d: unknown; seq?: number }): void {
  if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message));
}
