import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { isRtp, rtpSsrc } from './crypto.ts';

const DISCOVERY_LENGTH = 74;
const DISCOVERY_REQUEST = 1;
const DISCOVERY_RESPONSE = 2;
const KEEP_ALIVE_LENGTH = 8;

/** What the UDP side hands to the server: every datagram, already classified. */
export interface UdpHandlers {
  /** IP discovery for an SSRC; returns whether the SSRC belongs to a live session. */
  discovery(ssrc: number, from: RemoteInfo): boolean;
  keepAlive(from: RemoteInfo): void;
  rtp(ssrc: number, packet: Buffer, from: RemoteInfo): void;
  /** Datagrams that are none of the above. */
  unknown(packet: Buffer, from: RemoteInfo): void;
}

/** The voice server's single UDP port on 127.0.0.1: IP discovery, keep-alives and RTP. */
export class FakeVoiceUdp {
  readonly #socket: Socket;
  #handlers: UdpHandlers | undefined;

  private constructor(socket: Socket) {
    this.#socket = socket;
    socket.on('message', (packet, from) => this.#onMessage(packet, from));
  }

  /** Binds a new UDP socket on an ephemeral port of 127.0.0.1; datagrams wait for `serve`. */
  static async start(): Promise<FakeVoiceUdp> {
    const socket = createSocket('udp4');
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(0, '127.0.0.1', () => {
        socket.off('error', reject);
        resolve();
      });
    });
    return new FakeVoiceUdp(socket);
  }

  /** Hands every later datagram to these handlers. */
  serve(handlers: UdpHandlers): void {
    this.#handlers = handlers;
  }

  get port(): number {
    return this.#socket.address().port;
  }

  /** Closes the socket; resolves once it is closed. */
  close(): Promise<void> {
    return new Promise((resolve) => this.#socket.close(() => resolve()));
  }

  #onMessage(packet: Buffer, from: RemoteInfo): void {
    const handlers = this.#handlers;
    if (!handlers) return;
    if (packet.length === DISCOVERY_LENGTH && packet.readUInt16BE(0) === DISCOVERY_REQUEST) {
      const ssrc = packet.readUInt32BE(4);
      if (handlers.discovery(ssrc, from)) this.#send(discoveryResponse(ssrc, from), from);
    } else if (packet.length === KEEP_ALIVE_LENGTH) {
      handlers.keepAlive(from);
      // Discord echoes keep-alives; the library ignores datagrams of 8 bytes or fewer.
      this.#send(packet, from);
    } else if (isRtp(packet)) {
      handlers.rtp(rtpSsrc(packet), packet, from);
    } else {
      handlers.unknown(packet, from);
    }
  }

  #send(packet: Buffer, to: RemoteInfo): void {
    this.#socket.send(packet, to.port, to.address);
  }
}

/** Type 2, length 70, SSRC, the sender's address NUL-terminated from offset 8, port in the last 2. */
function discoveryResponse(ssrc: number, from: RemoteInfo): Buffer {
  const response = Buffer.alloc(DISCOVERY_LENGTH);
  response.writeUInt16BE(DISCOVERY_RESPONSE, 0);
  response.writeUInt16BE(DISCOVERY_LENGTH - 4, 2);
  response.writeUInt32BE(ssrc, 4);
  response.write(from.address, 8, 'utf8');
  response.writeUInt16BE(from.port, DISCOVERY_LENGTH - 2);
  return response;
}
