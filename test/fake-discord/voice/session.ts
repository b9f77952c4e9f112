import { randomBytes } from 'node:crypto';
import type { WebSocket } from 'ws';
import { OpusStreamDecoder } from './opus.ts';

/** What the main gateway knows about a bot's voice state when it asks for a voice server. */
export interface VoiceSessionInfo {
  guildId: string;
  channelId: string;
  userId: string;
  sessionId: string;
}

/** One `open()` of the backend: a token, an SSRC, and the voice websockets that used the token. */
export interface VoiceSession extends VoiceSessionInfo {
  readonly token: string;
  readonly ssrc: number;
  /** Set by Select Protocol; RTP before it cannot be decrypted. */
  secretKey: Buffer | undefined;
  /** Last `seq` sent on this session's voice websockets; survives a resume as Discord's does. */
  seq: number;
  /** True once `close()` ended the session: its token is no longer accepted. */
  closed: boolean;
  readonly sockets: Set<WebSocket>;
  readonly decoder: OpusStreamDecoder;
}

/** Creates a session with a fresh random token; the server picks an SSRC unique among its own. */
export function newVoiceSession(info: VoiceSessionInfo, ssrc: number): VoiceSession {
  return {
    ...info,
    token: randomBytes(16).toString('hex'),
    ssrc,
    secretKey: undefined,
    seq: 0,
    closed: false,
    sockets: new Set(),
    decoder: new OpusStreamDecoder(),
  };
}
