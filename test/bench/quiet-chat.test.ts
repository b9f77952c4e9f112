import { describe, expect, test } from 'vitest';
import { firstHeard, quietScript } from '../../bench/quiet-chat.ts';

describe('quietScript', () => {
  test('gaps within the bounds, texts numbered, 20–60 characters, the same for a seed', () => {
    const plan = { messages: 30, minGapMs: 10_000, maxGapMs: 20_000 };
    const lines = quietScript(plan);
    expect(lines).toHaveLength(30);
    for (const [i, line] of lines.entries()) {
      expect(line.text).toMatch(new RegExp(`^Message ${i}\\b`));
      expect(line.text.length).toBeGreaterThanOrEqual(19);
      expect(line.text.length).toBeLessThanOrEqual(60);
      const next = lines[i + 1];
      if (next === undefined) continue;
      expect(next.atMs - line.atMs).toBeGreaterThanOrEqual(10_000);
      expect(next.atMs - line.atMs).toBeLessThanOrEqual(20_000);
    }
    expect(quietScript(plan)).toEqual(lines);
  });
});

describe('firstHeard', () => {
  test('the first packet after each posting and before the next; NaN when none came', () => {
    const heard = firstHeard([0, 10_000, 20_000], [5, 400, 420, 10_900, 25_000]);
    expect(heard).toEqual([5, 900, 5000]);
    expect(firstHeard([0, 100], [50])).toEqual([50, Number.NaN]);
  });
});
