/** Small HTTP and timer helpers shared by the API and media servers. */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** Largest request body read; bigger bodies are refused. */
export const MAX_BODY_BYTES = 1024 * 1024;

/** Reads the whole request body, or `undefined` when it is larger than MAX_BODY_BYTES. */
export async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Sends a JSON body with Content-Length. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  sendRaw(res, status, JSON.stringify(body), 'application/json', headers);
}

/** Sends a body as given (used for malformed JSON and media). */
export function sendRaw(
  res: ServerResponse,
  status: number,
  body: string | Buffer,
  contentType: string,
  headers: Record<string, string> = {},
  headOnly = false,
): void {
  if (res.destroyed) return;
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  res.writeHead(status, {
    'content-type': contentType,
    'content-length': String(bytes.length),
    ...headers,
  });
  res.end(headOnly ? undefined : bytes);
}

/** Timers that can all be cancelled at once, so a closed emulator leaves none behind. */
export class Scheduler {
  readonly #pending = new Map<NodeJS.Timeout, () => void>();
  #closed = false;

  /** Resolves true after `ms`, or false as soon as the scheduler is closed. */
  sleep(ms: number): Promise<boolean> {
    if (this.#closed) return Promise.resolve(false);
    return new Promise((resolve) => {
      const timer = setTimeout(
        () => {
          this.#pending.delete(timer);
          resolve(true);
        },
        Math.max(0, ms),
      );
      this.#pending.set(timer, () => resolve(false));
    });
  }

  /** True once `close()` ran. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Cancels every pending sleep (they resolve false); later sleeps resolve false at once. */
  close(): void {
    this.#closed = true;
    for (const [timer, cancel] of this.#pending) {
      clearTimeout(timer);
      cancel();
    }
    this.#pending.clear();
  }
}

/** Tracks a server's sockets so closing can end keep-alive and in-flight connections. */
export function trackSockets(server: Server): Set<Socket> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  return sockets;
}

/** Listens on host:port (0 = free port) and returns the bound port. */
export function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      if (address === null || typeof address === 'string') reject(new Error('no TCP address'));
      else resolve(address.port);
    });
  });
}

/** Closes a server and destroys its remaining sockets. */
export function shutdown(server: Server, sockets: Set<Socket>): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) {
      resolve();
      return;
    }
    server.close(() => resolve());
    for (const socket of sockets) socket.destroy();
    sockets.clear();
  });
}
