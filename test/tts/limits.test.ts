import { describe, expect, test } from 'vitest';
import {
  DEFAULT_LIMITS,
  parseLimits,
  shareOfLimits,
  V3_DEFAULT_LIMITS,
} from '../../src/tts/limits.ts';
import { OPERATIONS } from '../../src/tts/types.ts';

describe('parseLimits', () => {
  test.each([
    [undefined, DEFAULT_LIMITS],
    ['', DEFAULT_LIMITS],
    [
      'generate=40/1m+1000/1d',
      {
        ...DEFAULT_LIMITS,
        generate: [
          { count: 40, windowMs: 60_000 },
          { count: 1000, windowMs: 86_400_000 },
        ],
      },
    ],
    ['status=6/600ms', { ...DEFAULT_LIMITS, status: [{ count: 6, windowMs: 600 }] }],
    [
      'voices=1/s, health=5/0.5s',
      {
        ...DEFAULT_LIMITS,
        voices: [{ count: 1, windowMs: 1000 }],
        health: [{ count: 5, windowMs: 500 }],
      },
    ],
  ])('%j', (text, expected) => {
    expect(parseLimits(text)).toEqual(expected);
  });

  test.each([
    ['generate', /form operation=count\/window/],
    ['speak=1/1m', /unknown operation "speak"/],
    ['status=abc', /not a limit like/],
    ['status=0/1m', /at least one request/],
    ['status=5/1w', /not a limit like/],
  ])('rejects %j', (text, message) => {
    expect(() => parseLimits(text)).toThrow(message);
  });
});

describe('shareOfLimits', () => {
  const MINUTE = 60_000;
  const DAY = 86_400_000;
  test.each([
    // processes, generate (20/min + 500/day), status (60/min), voices (10/min), health (100/min)
    [1, [20, 500], 60, 10, 100],
    [2, [10, 250], 30, 5, 50],
    [3, [6, 166], 20, 3, 33],
    [16, [1, 31], 3, 1, 6],
    [40, [1, 12], 1, 1, 2],
  ])(
    '%i processes: each keeps generate %j, status %i, voices %i, health %i per window',
    (processes, generate, status, voices, health) => {
      const share = shareOfLimits(DEFAULT_LIMITS, processes);
      expect(share).toEqual({
        generate: [
          { count: generate[0], windowMs: MINUTE },
          { count: generate[1], windowMs: DAY },
        ],
        status: [{ count: status, windowMs: MINUTE }],
        voices: [{ count: voices, windowMs: MINUTE }],
        health: [{ count: health, windowMs: MINUTE }],
        request: [],
      });
    },
  );

  test('v3: the request allowance (120 a minute) is shared the same way', () => {
    expect(shareOfLimits(V3_DEFAULT_LIMITS, 2).request).toEqual([{ count: 60, windowMs: MINUTE }]);
    expect(shareOfLimits(V3_DEFAULT_LIMITS, 3).request).toEqual([{ count: 40, windowMs: MINUTE }]);
  });

  test('together the shares never pass a limit, unless a count is below the number of processes', () => {
    for (let processes = 1; processes <= 64; processes++) {
      const share = shareOfLimits(DEFAULT_LIMITS, processes);
      for (const op of OPERATIONS) {
        DEFAULT_LIMITS[op].forEach((limit, index) => {
          const mine = share[op][index];
          expect(mine?.windowMs).toBe(limit.windowMs);
          expect(mine?.count).toBeGreaterThanOrEqual(1);
          if (limit.count >= processes) {
            expect((mine?.count ?? 0) * processes).toBeLessThanOrEqual(limit.count);
          } else expect(mine?.count).toBe(1);
        });
      }
    }
  });
});
