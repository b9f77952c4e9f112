import { describe, expect, test } from 'vitest';
import { type ProcEntry, treeOf, treeTicks, treeUsage } from '../../bench/many-voices-proc.ts';

const entry = (ppid: number, ownTicks: number, reapedTicks = 0): ProcEntry => ({
  ppid,
  ownTicks,
  reapedTicks,
});

describe('a bot process tree', () => {
  // 10 is the bench; 20 a bot with two ffmpeg (21, 22), one of which runs a child (23); 30 another bot.
  const procs = new Map<number, ProcEntry>([
    [10, entry(1, 5)],
    [20, entry(10, 100, 40)],
    [21, entry(20, 7)],
    [22, entry(20, 3, 2)],
    [23, entry(22, 1)],
    [30, entry(10, 50)],
    [31, entry(30, 9)],
  ]);

  test('holds the root and every descendant, not its siblings', () => {
    expect(treeOf(20, procs).sort()).toEqual([20, 21, 22, 23]);
    expect(treeOf(30, procs).sort()).toEqual([30, 31]);
    expect(treeOf(99, procs)).toEqual([]);
  });

  test("counts each running member's own and reaped time once", () => {
    expect(treeTicks(treeOf(20, procs), procs)).toBe(100 + 40 + 7 + 3 + 2 + 1);
  });

  test('reads this process from /proc, its memory and CPU above zero', () => {
    const [usage] = treeUsage([process.pid]);
    expect(usage?.memoryBytes).toBeGreaterThan(0);
    expect(usage?.cpuMs).toBeGreaterThanOrEqual(usage?.ownCpuMs ?? Number.NaN);
  });
});
