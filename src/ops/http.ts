import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../log/index.ts';
import type { Exposition } from './metrics.ts';

/**
 * One readiness check: its name, and whether it passed (with a reason when not). The reason
 * is for the log only: it can hold internal addresses, so `/readyz` never shows it.
 */
export interface Check {
  readonly name: string;
  readonly ok: boolean;
  readonly detail?: string;
}

/** What the operations endpoint asks of the process it serves. */
export interface OpsProbes {
  /** Readiness checks (Discord ready, store reachable…); ready when all pass. */
  ready(): Promise<readonly Check[]>;
  metrics(): Promise<Exposition>;
}

/** A running operations endpoint. */
export interface OpsServer {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Serves `/healthz` (the process is up), `/readyz` (200 when every check passes, else 503,
 * with each check's name and status as JSON; why one failed goes to the log) and `/metrics`
 * (Prometheus text).
 */
export async function startOpsServer(options: {
  readonly port: number;
  readonly host: string;
  readonly probes: OpsProbes;
  readonly logger: Logger;
}): Promise<OpsServer> {
  const { probes, logger } = options;
  // The failures last logged, so a probe polling every few seconds logs a change once.
  let failuresLogged = '';
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    const send = (status: number, type: string, body: string) => {
      response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      response.end(request.method === 'HEAD' ? undefined : body);
    };
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return send(405, 'text/plain', 'method not allowed\n');
    }
    if (path === '/healthz') return send(200, 'text/plain', 'ok\n');
    const answer = async () => {
      if (path === '/readyz') {
        const checks = await probes.ready();
        const ready = checks.every((check) => check.ok);
        const failures = checks.filter((check) => !check.ok);
        const failuresNow = JSON.stringify(failures);
        if (failuresNow !== failuresLogged && failures.length > 0)
          logger.warn({ checks: failures }, 'not ready');
        failuresLogged = failuresNow;
        const shown = checks.map(({ name, ok }) => ({ name, ok }));
        send(
          ready ? 200 : 503,
          'application/json',
          `${JSON.stringify({ ready, checks: shown })}\n`,
        );
      } else if (path === '/metrics') {
        const { contentType, body } = await probes.metrics();
        send(200, contentType, body);
      } else {
        send(404, 'text/plain', 'not found\n');
      }
    };
    answer().catch((error: unknown) => {
      logger.error({ err: error, path }, 'operations endpoint failed');
      if (!response.headersSent) send(500, 'text/plain', 'internal error\n');
      else response.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  logger.info({ host: options.host, port }, 'operations endpoint listening');
  return {
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** Runs `check` with a time limit; a failure or timeout becomes a failed check with its reason. */
export async function timedCheck(
  name: string,
  check: () => Promise<unknown>,
  timeoutMs = 2000,
): Promise<Check> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      check(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
    return { name, ok: true };
  } catch (error) {
    return { name, ok: false, detail: error instanceof Error ? error.message : String(error) };
  } finally {
    clearTimeout(timer);
  }
}
