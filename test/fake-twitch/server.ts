/**
 * A fake Twitch chat server (IRC lines over WebSocket on 127.0.0.1, a free port) that accepts
 * the anonymous login and lets a test post messages, moderation and server commands.
 *
 * @example
 * const twitch = await FakeTwitch.start();
 * const chat = new TwitchChat({ url: twitch.url, ... });
 * chat.read('guild-1', 'somechannel');
 * await until(() => twitch.joined('somechannel'));
 * twitch.post('somechannel', { id: 'm1', login: 'ronni', userId: '1', text: 'hi' });
 */
import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';
import {
  clearchatLine,
  clearmsgLine,
  joinLines,
  type PostedMessage,
  privmsgLine,
  welcomeLines,
} from './lines.ts';

/** One client connection as the fake sees it. */
interface Client {
  readonly socket: WebSocket;
  nick: string | undefined;
  readonly caps: Set<string>;
  readonly channels: Set<string>;
}

/** A client line split as the fake needs it: command, middle words, trailing text. */
function splitClientLine(line: string): { command: string; args: string[] } {
  const colon = line.indexOf(' :');
  const head = colon === -1 ? line : line.slice(0, colon);
  const [command = '', ...args] = head.split(' ').filter((word) => word !== '');
  if (colon !== -1) args.push(line.slice(colon + 2));
  return { command: command.toUpperCase(), args };
}

/** The fake Twitch chat server; see the module comment. */
export class FakeTwitch {
  readonly #server: WebSocketServer;
  readonly #clients = new Set<Client>();
  readonly #roomIds = new Map<string, string>();
  /** Every line clients sent, in order (CR LF removed). */
  readonly received: string[] = [];
  /** Every channel a client asked to JOIN, once per channel asked. */
  readonly joins: string[] = [];
  /** Every channel a client asked to PART. */
  readonly parts: string[] = [];
  /** Connections accepted so far (refused ones not counted). */
  connections = 0;
  /** While true, every new connection is cut at once (Twitch unreachable). */
  refusing = false;
  /** While false, a client's PING goes unanswered (a half-open link). */
  answeringPings = true;

  private constructor(server: WebSocketServer) {
    this.#server = server;
    server.on('connection', (socket) => this.#accept(socket));
  }

  /** Starts listening on 127.0.0.1, on a free port. */
  static start(): Promise<FakeTwitch> {
    return new Promise((resolve, reject) => {
      const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
      server.once('error', reject);
      server.once('listening', () => resolve(new FakeTwitch(server)));
    });
  }

  /** `ws://127.0.0.1:PORT`, what `TWITCH_CHAT_URL` would say. */
  get url(): string {
    const { port } = this.#server.address() as AddressInfo;
    return `ws://127.0.0.1:${port}`;
  }

  /** Clients logged in now. */
  get online(): number {
    return [...this.#clients].filter((client) => client.nick !== undefined).length;
  }

  /** Some logged-in client is in `channel` now. */
  joined(channel: string): boolean {
    return [...this.#clients].some((client) => client.channels.has(channel));
  }

  /** Posts a chat message to everyone in `channel`. */
  post(channel: string, message: PostedMessage): void {
    this.#toChannel(channel, privmsgLine(channel, this.#roomId(channel), message));
  }

  /** A moderator deletes one message. */
  deleteMessage(channel: string, messageId: string, login: string): void {
    this.#toChannel(channel, clearmsgLine(channel, messageId, login));
  }

  /** A moderator times a chatter out (with `user`), or clears the whole chat. */
  clearChat(channel: string, user?: { readonly login: string; readonly userId: string }): void {
    this.#toChannel(channel, clearchatLine(channel, this.#roomId(channel), user));
  }

  /** Twitch is about to restart: every client is asked to reconnect. */
  askReconnect(): void {
    for (const client of this.#clients) this.#send(client, ':tmi.twitch.tv RECONNECT');
  }

  /** Sends `text` as one frame, as it is, to every client in `channel` (an oversized frame). */
  sendRaw(channel: string, text: string): void {
    for (const client of this.#clients) {
      if (client.channels.has(channel) && client.socket.readyState === client.socket.OPEN)
        client.socket.send(text);
    }
  }

  /** Twitch checks the clients are alive. */
  ping(): void {
    for (const client of this.#clients) this.#send(client, 'PING :tmi.twitch.tv');
  }

  /** Every connection is cut without a close frame (a network failure). */
  dropAll(): void {
    for (const client of this.#clients) client.socket.terminate();
  }

  /** Stops the server and cuts every client. */
  close(): Promise<void> {
    this.dropAll();
    return new Promise((resolve, reject) =>
      this.#server.close((error) => (error === undefined ? resolve() : reject(error))),
    );
  }

  #roomId(channel: string): string {
    let id = this.#roomIds.get(channel);
    if (id === undefined) {
      id = String(100_000 + this.#roomIds.size);
      this.#roomIds.set(channel, id);
    }
    return id;
  }

  #toChannel(channel: string, line: string): void {
    for (const client of this.#clients) if (client.channels.has(channel)) this.#send(client, line);
  }

  #send(client: Client, line: string): void {
    if (client.socket.readyState === client.socket.OPEN) client.socket.send(`${line}\r\n`);
  }

  #accept(socket: WebSocket): void {
    if (this.refusing) {
      socket.terminate();
      return;
    }
    this.connections += 1;
    const client: Client = { socket, nick: undefined, caps: new Set(), channels: new Set() };
    this.#clients.add(client);
    socket.on('close', () => this.#clients.delete(client));
    socket.on('message', (data) => {
      for (const line of String(data).split('\r\n')) if (line !== '') this.#line(client, line);
    });
  }

  #line(client: Client, line: string): void {
    this.received.push(line);
    const { command, args } = splitClientLine(line);
    const nick = client.nick;
    if (command === 'CAP' && args[0] === 'REQ') {
      const asked = (args[1] ?? '').split(' ');
      for (const cap of asked) client.caps.add(cap);
      this.#send(client, `:tmi.twitch.tv CAP * ACK :${asked.join(' ')}`);
    } else if (command === 'NICK') {
      const wanted = args[0] ?? '';
      if (!/^justinfan\d+$/.test(wanted)) {
        this.#send(client, ':tmi.twitch.tv NOTICE * :Login authentication failed');
        client.socket.close();
        return;
      }
      client.nick = wanted;
      for (const welcome of welcomeLines(wanted)) this.#send(client, welcome);
    } else if (command === 'PING' && this.answeringPings) {
      this.#send(client, `:tmi.twitch.tv PONG tmi.twitch.tv :${args[0] ?? 'tmi.twitch.tv'}`);
    } else if (nick !== undefined && (command === 'JOIN' || command === 'PART')) {
      for (const target of (args[0] ?? '').split(',')) {
        const channel = target.replace(/^#/, '').toLowerCase();
        if (command === 'JOIN') {
          this.joins.push(channel);
          client.channels.add(channel);
          for (const reply of joinLines(nick, channel, this.#roomId(channel))) {
            this.#send(client, reply);
          }
        } else {
          this.parts.push(channel);
          client.channels.delete(channel);
          this.#send(client, `:${nick}!${nick}@${nick}.tmi.twitch.tv PART #${channel}`);
        }
      }
    }
  }
}
