/**
 * The real bot (`src/main.ts`) as a child process, configured by environment like in
 * production, with its JSON log captured and its memory and CPU readable from /proc.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (where `src/main.ts` lives). */
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * Node's flags from the `start` script of package.json (without `--env-file…`), so the bot runs
 * here exactly as `npm start` runs it.
 */
export function startScriptFlags(): string[] {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
    scripts?: Record<string, string>;
  };
  const words = (pkg.scripts?.start ?? '').split(/\s+/);
  const main = words.indexOf('src/main.ts');
  return words.slice(1, main === -1 ? 1 : main).filter((w) => !w.startsWith('--env-file'));
}

/** Clock ticks per second of /proc/PID/stat times (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** A bot child process. */
export interface BotProcess {
  readonly pid: number;
  /** Parsed JSON log lines so far. */
  readonly logs: readonly Record<string, unknown>[];
  /** Resident memory of the bot process alone, in bytes. */
  rssBytes(): number;
  /** CPU time in ms of the bot, its running children (ffmpeg) and the children it has reaped. */
  cpuMs(): number;
  /** Pids of its running child processes. */
  children(): number[];
  /** SIGTERM (the bot's own clean shutdown), SIGKILL after `graceMs`; resolves once it exited. */
  stop(graceMs?: number): Promise<void>;
}

/** Starts `node src/main.ts` with `env` and resolves once it logged "bot is ready" (so `LOG_LEVEL` must show info). */
export async function startBotProcess(
  env: Record<string, string>,
  options: { readyTimeoutMs?: number } = {},
): Promise<BotProcess> {
  const child = spawn(
    process.execPath,
    [...startScriptFlags(), join(REPO_ROOT, 'src', 'main.ts')],
    {
      cwd: REPO_ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        NODE_ENV: 'production',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const pid = child.pid;
  if (pid === undefined) throw new Error('the bot process could not start');
  const logs: Record<string, unknown>[] = [];
  const stderr: string[] = [];
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  let buffered = '';
  const { promise: ready, resolve: onReady, reject: onFail } = Promise.withResolvers<void>();
  child.stdout?.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) {
      if (line.trim() === '') continue;
      try {
        const entry = JSON.parse(line) as Record<string, unknown>;
        logs.push(entry);
        if (entry.msg === 'bot is ready') onReady();
      } catch {
        stderr.push(line);
      }
    }
  });
  child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString('utf8')));
  void exited.then((code) =>
    onFail(
      new Error(`the bot exited with ${code} before it was ready: ${lastWords(logs, stderr)}`),
    ),
  );
  const timeoutMs = options.readyTimeoutMs ?? 120_000;
  const timer = setTimeout(
    () => onFail(new Error(`the bot was not ready in ${timeoutMs} ms`)),
    timeoutMs,
  );
  try {
    await ready;
  } catch (error) {
    child.kill('SIGKILL');
    await exited;
    throw error;
  } finally {
    clearTimeout(timer);
  }
  return {
    pid,
    logs,
    rssBytes: () => rssOf(pid),
    cpuMs: () => treeCpuMs(pid),
    children: () => childrenOf(pid),
    stop: (graceMs = 10_000) => stopChild(child, exited, graceMs),
  };
}

async function stopChild(
  child: ChildProcess,
  exited: Promise<number | null>,
  graceMs: number,
): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

function lastWords(logs: readonly Record<string, unknown>[], stderr: readonly string[]): string {
  const last = logs.at(-1);
  return last === undefined ? stderr.join('').slice(-500) : String(last.msg);
}

/** VmRSS of a process in bytes; 0 once it is gone. */
export function rssOf(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1];
    return kb === undefined ? 0 : Number(kb) * 1024;
  } catch {
    return 0;
  }
}

/** CPU time in ms of a process, its running children and the children it has reaped (from /proc). */
export function treeCpuMs(pid: number): number {
  const kids = childrenOf(pid).reduce((sum, kid) => sum + cpuTicks(kid, false), 0);
  return ((cpuTicks(pid, true) + kids) * 1000) / TICKS_PER_SECOND;
}

/** CPU time in ms of the process alone (its own threads, no children), from /proc. */
export function ownCpuMs(pid: number): number {
  return (cpuTicks(pid, false) * 1000) / TICKS_PER_SECOND;
}

/** utime + stime (and the reaped children's when `withReaped`) of a process, in ticks. */
function cpuTicks(pid: number, withReaped: boolean): number {
  const fields = statFields(pid);
  if (fields === undefined) return 0;
  // After the ")" of the command: state is field 3; utime, stime, cutime, cstime are 14–17.
  const at = (n: number) => Number(fields[n - 3] ?? 0);
  return at(14) + at(15) + (withReaped ? at(16) + at(17) : 0);
}

function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat
      .slice(stat.lastIndexOf(')') + 2)
      .trim()
      .split(' ');
  } catch {
    return undefined;
  }
}

/** Pids whose parent is `parent`. */
export function childrenOf(parent: number): number[] {
  const kids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const fields = statFields(Number(name));
    if (fields !== undefined && Number(fields[1]) === parent) kids.push(Number(name));
  }
  return kids;
}
