import { randomBytes } from 'node:crypto';
import type { WebSocket } from 'ws';
import type { VoiceSession as VoiceSessionInfo } from '../types.ts';
import type { DaveGroup } from './dave.ts';
import { OpusStreamDecoder } from './opus.ts';

export type { VoiceSessionInfo };

/** One `open()` of the backend: a token, an SSRC, and the voice websockets that used the token. */
export interface OpenSession extends VoiceSessionInfo {
  readonly token: string;
  readonly ssrc: number;
  /** Set by Select Protocol; RTP before it cannot be decrypted. */
  secretKey: Buffer | undefined;
  /** Last `seq` sent on this session's voice websockets; survives a resume as Discord's does. */
  seq: number;
  /** True once `close()` ended the session: its token is no longer accepted. */
  closed: boolean;
  readonly sockets: Set<WebSocket>;
  /** The DAVE group of the session's last Select Protocol, when DAVE was negotiated. */
  dave: DaveGroup | undefined;
  /** DAVE messages sent, by `seq`: a resume replays those after its `seq_ack`, as v8's buffered resume does. */
  readonly daveSent: { seq: number; data: Buffer | string }[];
  readonly decoder: OpusStreamDecoder;
}

/** Creates a session with a fresh random token; the server picks an SSRC unique among its own. */
export function newOpenSession(info: VoiceSessionInfo, ssrc: number): OpenSession {
  return {
    ...info,
    token: randomBytes(16).toString('hex'),
    ssrc,
    secretKey: undefined,
    seq: 0,
    closed: false,
    sockets: new Set(),
    dave: undefined,
    daveSent: [],
    decoder: new OpusStreamDecoder(),
  };
}
