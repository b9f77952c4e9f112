/**
 * Keeping the receiver (the fake voice server and emulator, in the bench process: other machines
 * in reality) out of the bot's way in the many-voices benches: scheduled ahead of the bots, and
 * for the capacity bench on a core of its own, the bot and all its children on the other.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { treePids } from './many-voices-proc.ts';

/** Niceness of the bench process while the bots speak (the bots' own stay 0). */
export const RECEIVER_NICENESS = -10;

/**
 * Listeners and Discord's voice servers are other machines: here the fake voice server shares
 * the bots' cores, and a moment it waits for a core would show as a gap in every stream it
 * receives. Raised above them (root only), its timestamps are the bots'.
 */
export function raiseReceiver(): { raised: boolean; restore: () => void } {
  const before = getPriority();
  try {
    setPriority(RECEIVER_NICENESS);
    return { raised: true, restore: () => setPriority(before) };
  } catch {
    return { raised: false, restore: () => undefined };
  }
}

/**
 * Pins every thread of `pid` to `cpus` (a `taskset` list such as `1` or `0-1`); children it
 * starts later inherit it. Returns the list it had before.
 */
export function pinProcess(pid: number, cpus: string): string {
  const before = cpusAllowed(pid);
  execFileSync('taskset', ['--all-tasks', '--cpu-list', '--pid', cpus, String(pid)], {
    stdio: 'ignore',
  });
  return before;
}

/** Pins `root` and every process below it (the bot and the ffmpeg it already runs) to `cpus`. */
export function pinTree(root: number, cpus: string): number {
  const pids = treePids(root);
  for (const pid of pids) pinProcess(pid, cpus);
  return pids.length;
}

/**
 * Threads of `root`'s tree whose allowed cores are not `cpus` (a list as the kernel prints it,
 * `1`), as `pid/tid: list`: empty when the whole tree stayed pinned.
 */
export function unpinnedIn(root: number, cpus: string): string[] {
  const stray: string[] = [];
  for (const pid of treePids(root)) {
    let tids: string[];
    try {
      tids = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue; // exited since the scan
    }
    for (const tid of tids) {
      const list = allowedList(`/proc/${pid}/task/${tid}/status`);
      if (list !== undefined && list !== cpus) stray.push(`${pid}/${tid}: ${list}`);
    }
  }
  return stray;
}

/** The cores `pid` may run on, as the kernel lists them (`0-1`). */
export function cpusAllowed(pid: number): string {
  const list = allowedList(`/proc/${pid}/status`);
  if (list === undefined) throw new Error(`no Cpus_allowed_list for process ${pid}`);
  return list;
}

function allowedList(statusPath: string): string | undefined {
  try {
    return /^Cpus_allowed_list:\s*(\S+)/m.exec(readFileSync(statusPath, 'utf8'))?.[1];
  } catch {
    return undefined; // exited
  }
}
