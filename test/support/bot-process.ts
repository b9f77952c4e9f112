/** The bot as a child process (`src/main.ts`, as `npm start` runs it), for signal and crash tests. */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import type { FakeDiscord } from '../fake-discord/index.ts';

/** A running bot process and what it wrote. */
export interface BotProcess {
  readonly child: ChildProcess;
  /** stdout and stderr so far (JSON log lines). */
  output(): string;
  /** Resolves once a log line matches `pattern`. */
  waitForLog(pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** Resolves with the exit code (null after a signal) and signal. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `src/main.ts` logged into `discord`, with `env` added (TTS, store, data folder…). */
export function spawnBot(discord: FakeDiscord, env: Record<string, string>): BotProcess {
  const child = spawn(process.execPath, ['src/main.ts'], {
    cwd: join(import.meta.dirname, '..', '..'),
    env: {
      PATH: process.env.PATH ?? '',
      // The test run's marker, so a process left behind fails the run (global-setup).
      TTS_BOT_TEST_RUN: process.env.TTS_BOT_TEST_RUN ?? '',
      NODE_ENV: 'production',
      LOG_LEVEL: 'debug',
      DISCORD_TOKEN: discord.token,
      DISCORD_API_URL: discord.apiUrl,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const listeners = new Set<() => void>();
  const append = (chunk: Buffer): void => {
    output += chunk.toString();
    for (const listener of [...listeners]) listener();
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    exited,
    output: () => output,
    waitForLog: (pattern, timeoutMs = 30_000) =>
      new Promise<void>((resolve, reject) => {
        const check = (): void => {
          if (!pattern.test(output)) return;
          finish();
          resolve();
        };
        const timer = setTimeout(() => {
          finish();
          reject(
            new Error(
              `bot process: no log line matching ${pattern} within ${timeoutMs} ms:\n${output.slice(-3000)}`,
            ),
          );
        }, timeoutMs);
        const gone = (): void => {
          finish();
          reject(
            new Error(`bot process exited before logging ${pattern}:\n${output.slice(-3000)}`),
          );
        };
        const finish = (): void => {
          clearTimeout(timer);
          listeners.delete(check);
          child.off('exit', gone);
        };
        listeners.add(check);
        child.once('exit', gone);
        check();
      }),
  };
}
