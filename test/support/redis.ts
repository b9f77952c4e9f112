import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address !== null
          ? resolve(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}

/** A throwaway redis-server on loopback, with no persistence. */
export interface TestRedis {
  readonly url: string;
  readonly port: number;
  /** Stops the server (SIGTERM, or SIGKILL to make it vanish mid-operation). */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Freezes the server (SIGSTOP): connections stay open and nothing is answered. */
  pause(): void;
  /** Lets a paused server run again (SIGCONT). */
  resume(): void;
}

/**
 * Starts `redis-server` on `port` (default: a free one) and waits until it accepts connections.
 * With `dir`, every write is appended to a file there first, so a server killed and started again
 * on the same `dir` keeps its data (as a production Redis would).
 */
export async function startRedis(
  port?: number,
  options: { dir?: string } = {},
): Promise<TestRedis> {
  port ??= await freePort();
  const persistence =
    options.dir === undefined
      ? ['--appendonly', 'no']
      : ['--appendonly', 'yes', '--appendfsync', 'always', '--dir', options.dir];
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...persistence],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error('redis-server did not start within 10 s')),
      10_000,
    );
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop: (signal = 'SIGTERM') =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill(signal);
        // A paused server handles SIGTERM only once it runs again.
        child.kill('SIGCONT');
      }),
    pause: () => void child.kill('SIGSTOP'),
    resume: () => void child.kill('SIGCONT'),
  };
}
