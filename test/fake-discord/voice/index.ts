/**
 * Fake Discord voice server: plug it into the fake gateway as its `VoiceBackend`, and make the
 * bot's process trust its certificate first (in-process: `await trustFakeVoiceCertificate()`;
 * a child process: `NODE_EXTRA_CA_CERTS=(await fakeVoiceCertificate()).certPath`).
 *
 *   const voice = await startFakeVoiceServer();
 *   const discord = await startFakeDiscord({ voice });
 *   // ... the bot plays something in guild G ...
 *   const audio = await voice.waitForAudio(G, { minDurationMs: 500, timeoutMs: 10_000 });
 *   await voice.close();
 */
import { randomInt } from 'node:crypto';
import type { RemoteInfo } from 'node:dgram';
import { createServer, type Server } from 'node:https';
import { type WebSocket, WebSocketServer } from 'ws';
import type { VoiceBackend } from '../types.ts';
import { decryptRtp } from './crypto.ts';
import { ClientsOp, type DaveFaults, type DaveGroupStats } from './dave.ts';
import {
  type DaveSettings,
  deliverDave,
  type SpeakingEvent,
  serveVoiceGateway,
  VoiceCloseCode,
  type VoiceSocketInfo,
} from './gateway.ts';
import { isSilenceFrame } from './opus.ts';
import { AudioRecords, type ReceivedAudio, type WaitForAudioOptions } from './records.ts';
import { newOpenSession, type OpenSession, type VoiceSessionInfo } from './session.ts';
import { fakeVoiceCertificate } from './tls.ts';
import { FakeVoiceUdp } from './udp.ts';

export type { DaveCounters, DaveGroupStats } from './dave.ts';
export {
  type FakeVoiceCertificate,
  fakeVoiceCertificate,
  trustFakeVoiceCertificate,
} from './tls.ts';
export type { DaveSettings, ReceivedAudio, SpeakingEvent, WaitForAudioOptions };
export { VoiceCloseCode };

/** One open voice websocket. */
export interface VoiceConnectionInfo {
  guildId: string | undefined;
  channelId: string | undefined;
  userId: string | undefined;
  sessionId: string | undefined;
  ssrc: number | undefined;
  /** The `?v=8` query the socket was opened with. */
  query: string;
  heartbeats: number;
  resumed: boolean;
}

/** Options of `startFakeVoiceServer`. */
export interface FakeVoiceServerOptions {
  /** Sent in Hello; default 5000 ms (Discord's is ~13.75 s). */
  heartbeatIntervalMs?: number;
  /**
   * DAVE (end-to-end encryption), on by default as on Discord: the fake negotiates protocol
   * version 1 with clients that offer it and adds its listening members (default: one,
   * `LISTENING_MEMBER_ID`) to their groups. `false`: version 0, transport encryption only.
   */
  dave?: Partial<DaveSettings> | false;
  /**
   * Let `shutdown` pass although a guild heard plaintext frames while DAVE was negotiated. Off by
   * default: every voice harness then fails when the bot spoke in clear (see `plaintextReport`).
   */
  allowPlaintext?: boolean;
}

/** The listening member the fake adds to every DAVE group unless told otherwise. */
export const LISTENING_MEMBER_ID = '100000000000000999';

/** A fake Discord voice server on 127.0.0.1: voice gateway v8 over wss, UDP with RTP. */
export class FakeVoiceServer implements VoiceBackend {
  readonly #https: Server;
  readonly #wss: WebSocketServer;
  readonly #udp: FakeVoiceUdp;
  readonly #records = new AudioRecords();
  readonly #byToken = new Map<string, OpenSession>();
  readonly #bySsrc = new Map<number, OpenSession>();
  readonly #sockets = new Map<WebSocket, VoiceSocketInfo>();
  /** UDP `address:port` → session, learnt from IP discovery, to attribute keep-alives. */
  readonly #byAddress = new Map<string, OpenSession>();
  #daveDelayMs = 0;
  readonly #dave: DaveSettings | undefined;
  readonly #allowPlaintext: boolean;
  /** Listening members present per guild, once a test changed them (default: `dave.memberIds`). */
  readonly #presence = new Map<string, string[]>();
  readonly #daveFaults: DaveFaults = { corruptNextCommit: false, stallTransitions: false };

  private constructor(
    https: Server,
    wss: WebSocketServer,
    udp: FakeVoiceUdp,
    heartbeatMs: number,
    dave: DaveSettings | undefined,
    allowPlaintext: boolean,
  ) {
    this.#dave = dave;
    this.#allowPlaintext = allowPlaintext;
    this.#https = https;
    this.#wss = wss;
    this.#udp = udp;
    udp.serve({
      discovery: (ssrc, from) => this.#onDiscovery(ssrc, from),
      keepAlive: (from) => this.#onKeepAlive(from),
      rtp: (ssrc, packet) => this.#onRtp(ssrc, packet),
      unknown: () => undefined,
    });
    serveVoiceGateway(wss, {
      heartbeatIntervalMs: heartbeatMs,
      udpPort: () => udp.port,
      sessionByToken: (token) => this.#byToken.get(token),
      speaking: (session, event) => this.#records.record(session.guildId).speaking.push(event),
      sockets: this.#sockets,
      dave,
      daveDelayMs: () => this.#daveDelayMs,
      daveMembers: (guildId) => this.#membersOf(guildId),
      daveFaults: this.#daveFaults,
    });
  }

  /** Use `startFakeVoiceServer()`. */
  static async start(options: FakeVoiceServerOptions = {}): Promise<FakeVoiceServer> {
    const { cert, key } = await fakeVoiceCertificate();
    const https = createServer({ cert, key });
    const wss = new WebSocketServer({ server: https });
    await new Promise<void>((resolve, reject) => {
      https.once('error', reject);
      https.listen(0, '127.0.0.1', () => {
        https.off('error', reject);
        resolve();
      });
    });
    const udp = await FakeVoiceUdp.start();
    const dave =
      options.dave === false
        ? undefined
        : { require: false, memberIds: [LISTENING_MEMBER_ID], ...options.dave };
    const heartbeatMs = options.heartbeatIntervalMs ?? 5000;
    return new FakeVoiceServer(https, wss, udp, heartbeatMs, dave, options.allowPlaintext ?? false);
  }

  /** `host:port` of the voice websocket, as VOICE_SERVER_UPDATE's `endpoint`. */
  get endpoint(): string {
    const address = this.#https.address();
    if (address === null || typeof address === 'string')
      throw new Error('voice server not listening');
    return `127.0.0.1:${address.port}`;
  }

  /** Backend call for a join or move: a new session with its own token and SSRC. */
  open(info: VoiceSessionInfo): { endpoint: string; token: string } {
    let ssrc = randomInt(1, 2 ** 31);
    while (this.#bySsrc.has(ssrc)) ssrc = randomInt(1, 2 ** 31);
    const { guildId, channelId, userId, sessionId } = info;
    const session = newOpenSession({ guildId, channelId, userId, sessionId }, ssrc);
    this.#byToken.set(session.token, session);
    this.#bySsrc.set(ssrc, session);
    return { endpoint: this.endpoint, token: session.token };
  }

  /**
   * Without an argument: shuts the whole server down (see `shutdown`). With one: the backend call
   * for a leave. It ends the sessions opened so far for this guild and gateway session: their
   * tokens stop working and their voice websockets close with 4014, as Discord's do. Sessions
   * opened later (a quick rejoin) are untouched; pass `token` (from `open`) to end exactly one
   * session when the call may come after a rejoin's `open`.
   */
  close(): Promise<void>;
  close(target: { guildId: string; sessionId: string; token?: string }): void;
  close(target?: {
    guildId: string;
    sessionId: string;
    token?: string;
  }): Promise<void> | undefined {
    if (target === undefined) return this.shutdown();
    for (const session of [...this.#byToken.values()]) {
      const matches = session.guildId === target.guildId && session.sessionId === target.sessionId;
      if (matches && (target.token === undefined || target.token === session.token)) {
        this.#endSession(session, VoiceCloseCode.Disconnected, 'Disconnected');
      }
    }
    return undefined;
  }

  /**
   * Delays the DAVE handshake of later Select Protocols by `ms` (0: none), as a slow voice server
   * would; also the re-add of a bot that sent op 31 (Discord waits for a member's commit).
   */
  delayDaveHandshake(ms: number): void {
    this.#daveDelayMs = ms;
  }

  /**
   * A listening member joins the guild's voice channel: announced to the bot (op 11) and added to
   * its DAVE group (op 27, the bot commits, op 29/30, 23, 22): a new epoch. Later groups (a
   * re-identify, a move) include it too.
   */
  joinMember(guildId: string, userId: string): void {
    const members = this.#membersOf(guildId);
    if (!members.includes(userId)) this.#presence.set(guildId, [...members, userId]);
    for (const session of this.#liveSessions(guildId)) {
      if (session.dave) deliverDave(session, session.dave.join(userId));
    }
  }

  /** A listening member leaves (op 13, a Remove proposal): a new epoch; it hears nothing more. */
  leaveMember(guildId: string, userId: string): void {
    this.#presence.set(
      guildId,
      this.#membersOf(guildId).filter((id) => id !== userId),
    );
    for (const session of this.#liveSessions(guildId)) {
      if (session.dave) deliverDave(session, session.dave.leave(userId));
    }
  }

  /**
   * Discord recreates the guild's DAVE group (op 24 with epoch 1, op 25): the bot resets its
   * session and sends a new key package, the listening members present join the new group through
   * the bot's Welcome, and the commit is a transition (op 29, 23, 22). Frames already in flight
   * still decrypt (members keep the last group's keys, as Discord's clients do for a while).
   */
  recreateGroup(guildId: string): void {
    for (const session of this.#liveSessions(guildId)) {
      if (session.dave) deliverDave(session, session.dave.recreate());
    }
  }

  /**
   * A member without DAVE joins the channel where that is still allowed: op 11, then a downgrade
   * to protocol version 0 (op 21; the bot answers op 23, the fake executes with op 22). From the
   * execute on, the listening members accept plaintext (counted as `dave.downgraded`, not as
   * `plaintext`) until the bot encrypts again after `leaveMemberWithoutDave`. Not kept for later
   * sessions (a re-identify gets DAVE again).
   */
  joinMemberWithoutDave(guildId: string, userId: string): void {
    for (const session of this.#liveSessions(guildId)) {
      if (!session.dave) continue;
      deliverDave(session, [
        { op: ClientsOp.Connect, d: { user_ids: [userId] } },
        ...session.dave.downgrade(),
      ]);
    }
  }

  /**
   * The member without DAVE leaves: op 13, then the upgrade back to protocol version 1, a new
   * group (op 24 with epoch 1, as `recreateGroup`); every frame after the bot's first encrypted
   * one must decrypt again.
   */
  leaveMemberWithoutDave(guildId: string, userId: string): void {
    for (const session of this.#liveSessions(guildId)) {
      if (!session.dave) continue;
      deliverDave(session, [
        { op: ClientsOp.Disconnect, d: { user_id: userId } },
        ...session.dave.recreate(),
      ]);
    }
  }

  /** The listening members present in a guild's voice channel. */
  membersOf(guildId: string): string[] {
    return [...this.#membersOf(guildId)];
  }

  /** What the DAVE group of the guild's latest session did (undefined without one). */
  daveStats(guildId: string): DaveGroupStats | undefined {
    return this.#liveSessions(guildId).at(-1)?.dave?.stats();
  }

  /**
   * Faults for tests of recovery: `corruptNextCommit` flips a byte of the next commit announced
   * to a bot (it answers op 31 and is re-added); `stallTransitions` never executes a transition.
   */
  injectDaveFaults(faults: Partial<DaveFaults>): void {
    Object.assign(this.#daveFaults, faults);
  }

  /**
   * Guilds that heard plaintext frames while DAVE was negotiated, with their counters; empty when
   * the bot never spoke in clear. `shutdown` fails when this is not empty.
   */
  plaintextReport(): string[] {
    return this.#records
      .guilds()
      .map((guildId) => ({ guildId, plaintext: this.#records.plaintextSinceStart(guildId) }))
      .filter(({ plaintext }) => plaintext > 0)
      .map(({ guildId, plaintext }) => `guild ${guildId}: ${plaintext} plaintext frames`);
  }

  #membersOf(guildId: string): readonly string[] {
    return this.#presence.get(guildId) ?? this.#dave?.memberIds ?? [];
  }

  #liveSessions(guildId: string): OpenSession[] {
    return [...this.#byToken.values()].filter((s) => s.guildId === guildId && !s.closed);
  }

  /** What a guild's sessions sent so far. */
  received(guildId: string): ReceivedAudio {
    return this.#records.snapshot(guildId);
  }

  /** Resolves once a guild received audio and then nothing for `quietMs` (default 300 ms). */
  waitForAudio(guildId: string, options: WaitForAudioOptions): Promise<ReceivedAudio> {
    return this.#records.waitForAudio(guildId, options);
  }

  /** Forgets what a guild received. */
  reset(guildId: string): void {
    this.#records.reset(guildId);
  }

  /** The voice websockets open right now. */
  connections(): VoiceConnectionInfo[] {
    return [...this.#sockets.values()].map(({ session, query, heartbeats, resumed }) => ({
      guildId: session?.guildId,
      channelId: session?.channelId,
      userId: session?.userId,
      sessionId: session?.sessionId,
      ssrc: session?.ssrc,
      query,
      heartbeats,
      resumed,
    }));
  }

  /**
   * Closes a guild's voice websockets without ending their sessions, as a crashed voice server
   * would: with the default 4015 the library resumes; with 4014 it goes to Disconnected.
   */
  dropConnections(guildId: string, code: number = VoiceCloseCode.ServerCrashed): void {
    for (const [ws, { session }] of this.#sockets) {
      if (session?.guildId === guildId) ws.close(code, 'Dropped by the fake voice server');
    }
  }

  /**
   * Ends every session (sockets closed with 4014, so the library does not try to resume), waits up
   * to `graceMs` for the sockets to close, terminates the rest, and closes the servers. Leaves no
   * timers behind; pending `waitForAudio` calls reject. Then rejects when a guild heard a
   * plaintext frame while DAVE was negotiated (unless `allowPlaintext`): every harness that
   * closes its voice server checks that the bot never spoke in clear.
   */
  async shutdown(graceMs = 1000): Promise<void> {
    await this.#close(graceMs);
    const plaintext = this.#allowPlaintext ? [] : this.plaintextReport();
    if (plaintext.length > 0) {
      throw new Error(`the bot sent plaintext voice frames under DAVE: ${plaintext.join('; ')}`);
    }
  }

  async #close(graceMs: number): Promise<void> {
    this.#records.cancelWaits('fake voice server closed');
    for (const session of [...this.#byToken.values()]) {
      this.#endSession(session, VoiceCloseCode.Disconnected, 'Voice server shutting down');
    }
    const open = [...this.#sockets.keys()];
    for (const ws of open) ws.close(VoiceCloseCode.Disconnected, 'Voice server shutting down');
    let grace: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(open.map((ws) => new Promise((resolve) => ws.once('close', resolve)))),
      new Promise((resolve) => {
        grace = setTimeout(resolve, graceMs);
      }),
    ]);
    clearTimeout(grace);
    for (const ws of this.#sockets.keys()) ws.terminate();
    await new Promise<void>((resolve) => this.#wss.close(() => resolve()));
    this.#https.closeAllConnections();
    await new Promise<void>((resolve) => this.#https.close(() => resolve()));
    await this.#udp.close();
  }

  #endSession(session: OpenSession, code: number, reason: string): void {
    session.closed = true;
    this.#byToken.delete(session.token);
    this.#bySsrc.delete(session.ssrc);
    for (const [address, owner] of this.#byAddress) {
      if (owner === session) this.#byAddress.delete(address);
    }
    for (const ws of session.sockets) ws.close(code, reason);
    session.decoder.release();
  }

  #onDiscovery(ssrc: number, from: RemoteInfo): boolean {
    const session = this.#bySsrc.get(ssrc);
    if (session) this.#byAddress.set(`${from.address}:${from.port}`, session);
    return session !== undefined;
  }

  #onKeepAlive(from: RemoteInfo): void {
    const session = this.#byAddress.get(`${from.address}:${from.port}`);
    if (session) this.#records.record(session.guildId).keepAlives += 1;
  }

  #onRtp(ssrc: number, packet: Buffer): void {
    const at = performance.timeOrigin + performance.now();
    const session = this.#bySsrc.get(ssrc);
    if (!session) return;
    const record = this.#records.record(session.guildId);
    if (!session.secretKey) {
      record.rejectedPackets += 1;
      return;
    }
    let opus: Buffer;
    try {
      opus = decryptRtp(packet, session.secretKey).opus;
    } catch {
      record.rejectedPackets += 1;
      return;
    }
    record.packets += 1;
    record.lastPacketAt = Date.now();
    if (isSilenceFrame(opus)) {
      record.silenceFrames += 1;
      return;
    }
    if (session.dave) {
      const decrypted = session.dave.hear(opus, record.dave);
      if (!decrypted) {
        record.rejectedPackets += 1;
        return;
      }
      opus = decrypted;
    }
    try {
      record.pcmSamples += session.decoder.decode(opus);
      record.opusFrames.push(opus);
      record.arrivals.push(at);
    } catch {
      record.rejectedPackets += 1;
    }
  }
}

/**
 * Starts a fake voice server on 127.0.0.1 (random ports). Clients must trust its certificate:
 * call `trustFakeVoiceCertificate()` in-process, or give a child process `NODE_EXTRA_CA_CERTS`.
 */
export function startFakeVoiceServer(options?: FakeVoiceServerOptions): Promise<FakeVoiceServer> {
  return FakeVoiceServer.start(options);
}
