/**
 * One WebSocket to Twitch chat, logged in anonymously (read-only, no token). It answers PING,
 * checks the link is alive, and ends itself on RECONNECT; whoever owns it decides what next.
 */
import WebSocket from 'ws';
import type { Logger } from '../log/index.ts';
import type { Clock } from '../tts/index.ts';
import { type IrcMessage, parseLine } from './irc.ts';

/**
 * Largest WebSocket frame taken from Twitch (256 KiB): one IRC line is at most about 8.7 KB
 * (8,191 bytes of tags and 512 of message, the IRCv3 limits Twitch keeps to) and Twitch puts a
 * few lines in a frame, so this holds some thirty maximal lines; `ws`'s own default (100 MiB)
 * would let a broken or hostile server make the bot buffer that much per frame. A bigger frame
 * ends the connection (close code 1009), and the link reconnects as after any drop.
 */
export const TWITCH_MAX_FRAME_BYTES = 256 * 1024;

/** Settings and callbacks of a {@link TwitchConnection}. */
export interface TwitchConnectionOptions {
  /** `wss://irc-ws.chat.twitch.tv:443`, or a test server's `ws://127.0.0.1:PORT`. */
  readonly url: string;
  /** `justinfan` and digits: Twitch's anonymous login. */
  readonly nick: string;
  readonly logger: Logger;
  readonly clock: Clock;
  /** Quiet this long, we PING the server. */
  readonly pingIntervalMs: number;
  /** No answer this long (to the WebSocket handshake, to our PING): the link is dead. */
  readonly answerTimeoutMs: number;
  /** The server accepted the login (001). */
  readonly onRegistered: () => void;
  /** Every line other than PING, PONG and RECONNECT. */
  readonly onLine: (message: IrcMessage, receivedAt: number) => void;
  /** Called once, however it ended. */
  readonly onClosed: (why: string) => void;
}

/** An anonymous chat connection; opens when constructed. */
export class TwitchConnection {
  readonly #options: TwitchConnectionOptions;
  readonly #socket: WebSocket;
  readonly #ended = new AbortController();
  #lastHeard: number;
  #why = 'the connection closed';
  /** We ended it: the reason we gave stands, not the error the socket reports on the way. */
  #closing = false;

  constructor(options: TwitchConnectionOptions) {
    this.#options = options;
    this.#lastHeard = options.clock.now();
    this.#socket = new WebSocket(options.url, {
      handshakeTimeout: options.answerTimeoutMs,
      maxPayload: TWITCH_MAX_FRAME_BYTES,
    });
    this.#socket.on('open', () => {
      this.send('CAP REQ :twitch.tv/tags twitch.tv/commands');
      this.send('PASS SCHMOOPIIE');
      this.send(`NICK ${options.nick}`);
      this.#keepAlive().catch((error: unknown) => {
        if (!this.#ended.signal.aborted) options.logger.warn({ err: error }, 'twitch keepalive');
      });
    });
    this.#socket.on('message', (data) => this.#received(String(data)));
    this.#socket.on('error', (error) => {
      if (!this.#closing) this.#why = `connection error: ${error.message}`;
    });
    this.#socket.on('close', (code) => {
      this.#ended.abort();
      options.onClosed(`${this.#why} (${code})`);
    });
  }

  /** The nick this connection logged in with. */
  get nick(): string {
    return this.#options.nick;
  }

  /** Sends one raw line; dropped (and false) when the socket is not open. */
  send(line: string): boolean {
    if (this.#socket.readyState !== WebSocket.OPEN) return false;
    this.#socket.send(`${line}\r\n`);
    return true;
  }

  /** Ends the connection; `onClosed` follows with `why`. */
  close(why: string): void {
    if (this.#closing) return;
    this.#closing = true;
    this.#why = why;
    if (this.#socket.readyState === WebSocket.CLOSED) return;
    // An answer to a close frame is not worth waiting for: the server may be gone.
    this.#socket.terminate();
  }

  #received(data: string): void {
    const at = this.#options.clock.now();
    this.#lastHeard = at;
    for (const line of data.split('\r\n')) {
      const message = line === '' ? undefined : parseLine(line);
      if (message === undefined) continue;
      switch (message.command) {
        case 'PING':
          // Twitch writes and expects the server name as a trailing parameter.
          this.send(`PONG :${message.params.at(-1) ?? 'tmi.twitch.tv'}`);
          break;
        case 'PONG':
          break;
        case 'RECONNECT':
          this.close('the server asked to reconnect');
          return;
        case '001':
          this.#options.onRegistered();
          break;
        default:
          this.#options.onLine(message, at);
      }
    }
  }

  /** PINGs a quiet server, and drops a link that stays silent after it (a half-open socket). */
  async #keepAlive(): Promise<void> {
    const { clock, pingIntervalMs, answerTimeoutMs } = this.#options;
    const signal = this.#ended.signal;
    while (!signal.aborted) {
      await clock.sleep(pingIntervalMs, signal);
      if (clock.now() - this.#lastHeard < pingIntervalMs) continue;
      const pingedAt = clock.now();
      this.send('PING :tmi.twitch.tv');
      await clock.sleep(answerTimeoutMs, signal);
      if (this.#lastHeard < pingedAt) this.close('no answer to PING');
    }
  }
}
