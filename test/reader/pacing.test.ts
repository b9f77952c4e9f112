import { describe, expect, test } from 'vitest';
import { nextTurnAt } from '../../src/reader/pacing.ts';

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
