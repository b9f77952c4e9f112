import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { BUSY_GAP_HOLDS, mergeHoldMs, nextTurnAt } from '../../src/reader/pacing.ts';

const minute = { count: 20, windowMs: 60_000 };
const day = { count: 500, windowMs: 86_400_000 };
const NOW = 100_000;

describe('nextTurnAt', () => {
  test.each([
    ['an unused key: at once', [{ limit: minute, used: 0, resetAt: null }], 0, 0],
    [
      'one used, freed in 60 s: 3 s after the last turn',
      [{ limit: minute, used: 1, resetAt: NOW + 60_000 }],
      NOW - 1000,
      NOW + 2000,
    ],
    [
      'half used, 30 s to go',
      [{ limit: minute, used: 10, resetAt: NOW + 30_000 }],
      NOW,
      NOW + 2728,
    ],
    [
      'all used: when the window frees one',
      [{ limit: minute, used: 20, resetAt: NOW + 40_000 }],
      NOW,
      NOW + 40_000,
    ],
    [
      'the daily limit does not pace',
      [{ limit: day, used: 400, resetAt: NOW + 80_000_000 }],
      NOW,
      0,
    ],
    [
      'the tightest short window wins',
      [
        { limit: minute, used: 19, resetAt: NOW + 10_000 },
        { limit: { count: 100, windowMs: 300_000 }, used: 1, resetAt: NOW + 200_000 },
      ],
      NOW,
      NOW + 5000,
    ],
  ])('%s', (_, usages, lastTurnAt, at) => {
    expect(nextTurnAt(usages, lastTurnAt, NOW)).toBe(at);
  });
});

describe('mergeHoldMs: a quiet chat is read at once, a busy one waits to merge', () => {
  const HOLD = 1000;
  /** Arrival times of `count` messages `gapMs` apart, the last at 100 s. */
  const paced = (gapMs: number, count = 4): number[] =>
    Array.from({ length: count }, (_, i) => 100_000 - (count - 1 - i) * gapMs);

  test.each([
    ['the first message the reader hears', [100_000], 0],
    ['one message every 15 s (a quiet chat)', paced(15_000), 0],
    ['one message every 10 s', paced(10_000), 0],
    ['one every 3 s', paced(3000), 0],
    ['one every 2 s: busy enough', paced(2000), HOLD],
    ['two a second (a busy chat)', paced(500), HOLD],
    ['ten a second', paced(100), HOLD],
    ['a burst after a minute of silence', [40_000, 99_000, 99_500, 100_000], 0],
    ['a burst going on after the silence', [40_000, 99_000, 99_500, 100_000, 100_300], HOLD],
    ['a busy chat whose latest message came after 20 s', [79_000, 79_500, 80_000, 100_000], 0],
  ])('%s', (_, arrivals, hold) => {
    expect(mergeHoldMs(arrivals, HOLD)).toBe(hold);
  });

  test('at any steady pace and hold: the hold when messages come within two holds, none past that', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 100, max: 5000 }),
        fc.integer({ min: 10, max: 60_000 }),
        fc.integer({ min: 2, max: 10 }),
        (holdMs, gapMs, count) => {
          const hold = mergeHoldMs(paced(gapMs, count), holdMs);
          expect(hold).toBe(gapMs <= BUSY_GAP_HOLDS * holdMs ? holdMs : 0);
        },
      ),
    );
  });

  test('at random paces: never more than the hold, and none once the last gap is long', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 100, max: 5000 }),
        fc.array(fc.integer({ min: 0, max: 30_000 }), { maxLength: 8 }),
        (holdMs, gaps) => {
          const arrivals = [0];
          for (const gap of gaps) arrivals.push((arrivals.at(-1) ?? 0) + gap);
          const hold = mergeHoldMs(arrivals, holdMs);
          expect([0, holdMs]).toContain(hold);
          const lastGap = gaps.at(-1) ?? 0;
          if (lastGap > 3 * BUSY_GAP_HOLDS * holdMs) expect(hold).toBe(0);
        },
      ),
    );
  });
});
