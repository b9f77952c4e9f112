/**
 * What a bot's whole process tree uses, for the many-voices bench: the node process and every
 * descendant (its ffmpeg children, whether one per item or one long-lived per server), read from
 * /proc in one scan, the same way for the bot and the plain bot.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/PID/stat times (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** One running process as /proc shows it. */
export interface ProcEntry {
  readonly ppid: number;
  /** utime + stime of the process itself, in ticks. */
  readonly ownTicks: number;
  /** cutime + cstime: the children it has reaped (and theirs), in ticks. */
  readonly reapedTicks: number;
}

/** A root's whole tree at one moment: resident memory and CPU so far. */
export interface TreeUsage {
  /**
   * Proportional set size (Pss) of the root and every running descendant, in bytes: a library
   * page mapped by n processes counts 1/n in each, so 24 ffmpeg do not count Debian's 40 MB of
   * ffmpeg libraries 24 times (RSS would), while each one's own heap counts whole.
   */
  readonly memoryBytes: number;
  /** CPU (ms) of the root, its running descendants and every child reaped in the tree. */
  readonly cpuMs: number;
  /** Of `cpuMs`, the root process's own (the rest is its children's: ffmpeg). */
  readonly ownCpuMs: number;
}

/** `root` and every descendant of it among `procs` (pid → entry). */
export function treeOf(root: number, procs: ReadonlyMap<number, ProcEntry>): number[] {
  const kids = new Map<number, number[]>();
  for (const [pid, entry] of procs) kids.set(entry.ppid, [...(kids.get(entry.ppid) ?? []), pid]);
  const tree: number[] = [];
  const queue = procs.has(root) ? [root] : [];
  for (let pid = queue.shift(); pid !== undefined; pid = queue.shift()) {
    tree.push(pid);
    queue.push(...(kids.get(pid) ?? []));
  }
  return tree;
}

/**
 * CPU ticks of a tree: each running member's own and reaped time. A reaped child's time is in
 * its parent's reaped time only, so nothing is counted twice.
 */
export function treeTicks(tree: readonly number[], procs: ReadonlyMap<number, ProcEntry>): number {
  return tree.reduce((sum, pid) => {
    const entry = procs.get(pid);
    return sum + (entry === undefined ? 0 : entry.ownTicks + entry.reapedTicks);
  }, 0);
}

/**
 * Each root's whole-tree usage now, from one scan of /proc (zeros for a root that is gone).
 * Without `memory`, Pss is not read (smaps is the slow part of a scan) and `memoryBytes` is 0.
 */
export function treeUsage(roots: readonly number[], memory = true): TreeUsage[] {
  const procs = scanProc();
  return roots.map((root) => {
    const tree = treeOf(root, procs);
    return {
      memoryBytes: memory ? tree.reduce((sum, pid) => sum + pssOf(pid), 0) : 0,
      cpuMs: (treeTicks(tree, procs) * 1000) / TICKS_PER_SECOND,
      ownCpuMs: ((procs.get(root)?.ownTicks ?? 0) * 1000) / TICKS_PER_SECOND,
    };
  });
}

/** `root` and every process below it now (empty when `root` is gone). */
export function treePids(root: number): number[] {
  return treeOf(root, scanProc());
}

function scanProc(): Map<number, ProcEntry> {
  const procs = new Map<number, ProcEntry>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // exited between the listing and the read
    }
    // After the ")" of the command: state is field 3, ppid 4; utime, stime, cutime, cstime 14–17.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const at = (n: number) => Number(fields[n - 3] ?? 0);
    procs.set(Number(name), {
      ppid: at(4),
      ownTicks: at(14) + at(15),
      reapedTicks: at(16) + at(17),
    });
  }
  return procs;
}

function pssOf(pid: number): number {
  try {
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    const kb = /^Pss:\s+(\d+) kB/m.exec(rollup)?.[1];
    return kb === undefined ? 0 : Number(kb) * 1024;
  } catch {
    return 0; // exited since the scan
  }
}
