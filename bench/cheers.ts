/**
 * The CPU one cheer costs to find its cheermotes (`withoutCheermotes`): hostile 500-character
 * lines of cheermote-shaped words whose amounts make a subset-sum search long. Before the
 * 10,000-state cap (50,000 states of objects) the worst took ~11 ms mean, 25 ms max on the
 * loaded 2-core machine.
 */
import { cpuUsage } from 'node:process';
import { withoutCheermotes } from '../src/twitch/index.ts';
import { oursRow, type Row } from './stats.ts';

/** Words from `word(i)` while the line stays within Twitch's 500 characters. */
function line(word: (i: number) => string): string {
  const words: string[] = [];
  for (let i = 0, length = -1; length + 1 + word(i).length <= 500; i++) {
    length += 1 + word(i).length;
    words.push(word(i));
  }
  return words.join(' ');
}

const CASES: readonly [string, string, number][] = [
  ['a real cheer (Cheer100 and words)', 'Cheer100 great stream, see you at party2 tomorrow', 100],
  ['word-like amounts 1–50, twice (999 bits)', line((i) => `uni${(i % 50) + 1}`), 999],
  ['even amounts, an odd cheer (20,001 bits)', line((i) => `Cheer${74 * (i + 1)}`), 20_001],
  ['large amounts (1,000,001 bits)', line((i) => `Cheer${100_000 + 2 * i}`), 1_000_001],
  ['unknown prefixes ab1 ab2 … (4,000 bits)', line((i) => `ab${i + 1}`), 4_000],
];

/** Mean and max CPU ms of one call, over 30 runs after 5 to warm up. */
function cpuMs(text: string, bits: number): { mean: number; max: number } {
  for (let i = 0; i < 5; i++) withoutCheermotes(text, bits);
  let total = 0;
  let max = 0;
  for (let i = 0; i < 30; i++) {
    const start = cpuUsage();
    withoutCheermotes(text, bits);
    const used = cpuUsage(start);
    const ms = (used.user + used.system) / 1000;
    total += ms;
    max = Math.max(max, ms);
  }
  return { mean: total / 30, max };
}

/** Rows: CPU per cheer, mean / max, against the 20 ms a line may hold the event loop. */
export function cheersBench(): Row[] {
  return CASES.map(([what, text, bits]) => {
    const { mean, max } = cpuMs(text, bits);
    return oursRow(
      'cheers',
      `CPU to strip the cheermotes of ${what}: mean / max`,
      `${mean.toFixed(2)} ms / ${max.toFixed(2)} ms`,
      { text: '< 20 ms (was 11 ms mean, 25 ms max)', met: max < 20 },
    );
  });
}
