import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

/** A bot entry point (`src/main.ts`, `src/sharded.ts`) running as its own Node process. */
export interface NodeProcess {
  readonly child: ChildProcess;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
  /** Resolves with the exit code once it has exited. */
  readonly exited: Promise<number | null>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it has exited. */
  stop(graceMs?: number): Promise<number | null>;
}

/** Starts `node <script>` from the project root with only `env` (plus PATH and the test-run marker). */
export function startNode(script: string, env: Record<string, string>): NodeProcess {
  const child = spawn(process.execPath, [script], {
    cwd: join(import.meta.dirname, '..', '..'),
    env: {
      PATH: process.env.PATH ?? '',
      ...(process.env.TTS_BOT_TEST_RUN ? { TTS_BOT_TEST_RUN: process.env.TTS_BOT_TEST_RUN } : {}),
      ...(process.env.NODE_EXTRA_CA_CERTS
        ? { NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS }
        : {}),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
  return {
    child,
    output: () => output,
    exited,
    async stop(graceMs = 20_000) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
      }
      return exited;
    },
  };
}

/** Polls `url` until it answers `status` (default 200); rejects after `timeoutMs` with the last answer. */
export async function waitForHttp(
  url: string,
  options: { status?: number; timeoutMs?: number; process?: NodeProcess } = {},
): Promise<string> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  let last = 'no answer';
  while (Date.now() < deadline) {
    if (options.process?.child.exitCode != null) {
      throw new Error(
        `the process exited (${options.process.child.exitCode}):\n${options.process.output()}`,
      );
    }
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(3000) });
      const body = await response.text();
      if (response.status === (options.status ?? 200)) return body;
      last = `${response.status} ${body}`;
    } catch (error) {
      last = (error as Error).message;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${url} did not answer ${options.status ?? 200} in time (last: ${last})`);
}

/** One sample of a Prometheus text exposition, e.g. `value(text, 'x_total', { a: 'b' })`; 0 when absent. */
export function metricValue(
  text: string,
  name: string,
  labels: Record<string, string> = {},
): number {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (match === null || match[1] !== name) continue;
    const found = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]),
    );
    const wanted = Object.entries(labels);
    if (wanted.length !== Object.keys(found).length) continue;
    if (wanted.every(([key, value]) => found[key] === value)) return Number(match[3]);
  }
  return 0;
}
