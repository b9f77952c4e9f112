import { randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';

const MARKER = 'TTS_BOT_TEST_RUN';

/** Processes (other than vitest's own) whose environment carries this run's marker. */
async function markedProcesses(run: string): Promise<string[]> {
  const found: string[] = [];
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    try {
      const environ = await readFile(`/proc/${pid}/environ`, 'utf8');
      if (!environ.split('\0').includes(`${MARKER}=${run}`)) continue;
      const comm = (await readFile(`/proc/${pid}/comm`, 'utf8')).trim();
      if (comm !== 'node' && !comm.startsWith('vitest')) found.push(`${pid} ${comm}`);
    } catch (error) {
      // The process ended while we looked, or is not ours to read.
      if (!['ENOENT', 'ESRCH', 'EACCES'].includes((error as NodeJS.ErrnoException).code ?? ''))
        throw error;
    }
  }
  return found;
}

/**
 * Marks every process the test run starts (ffmpeg, espeak-ng, redis-server…)
 * through the inherited environment, and fails the run if any outlives it.
 */
export default function setup(): () => Promise<void> {
  const run = randomUUID();
  process.env[MARKER] = run;
  return async () => {
    // Give processes killed at the very end a moment to be reaped.
    for (let attempt = 0; attempt < 20; attempt++) {
      const left = await markedProcesses(run);
      if (left.length === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new Error(`processes outlived the tests: ${(await markedProcesses(run)).join(', ')}`);
  };
}
