import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  formatMs,
  formatRatio,
  jitterMs,
  markdownTable,
  medianSpread,
  meets,
  oursRow,
  percentile,
  summarize,
  sustainedRate,
} from '../../bench/stats.ts';

describe('percentile and summarize', () => {
  test.each([
    [[], 0.5, Number.NaN],
    [[7], 0.95, 7],
    [[1, 2, 3, 4], 0.5, 2],
    [[4, 3, 2, 1], 0.5, 2],
    [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20], 0.95, 19],
    [[5, 1, 9], 1, 9],
    [[5, 1, 9], 0, 1],
  ])('%j at %d is %d', (values, q, expected) => {
    expect(percentile(values, q)).toBe(expected);
  });

  test('median ≤ p95, and both are among the values', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ noNaN: true, min: -1e6, max: 1e6 }), { minLength: 1 }),
        (values) => {
          const { median, p95, n } = summarize(values);
          expect(n).toBe(values.length);
          expect(median).toBeLessThanOrEqual(p95);
          expect(values).toContain(median);
          expect(values).toContain(p95);
        },
      ),
    );
  });
});

describe('jitterMs', () => {
  test.each([
    [[], []],
    [[100], []],
    [
      [0, 20, 40, 60],
      [0, 0, 0],
    ],
    [
      [0, 25, 40, 80],
      [5, 5, 20],
    ],
  ])('%j → %j', (arrivals, expected) => {
    expect(jitterMs(arrivals)).toEqual(expected);
  });
});

test('medianSpread: lowest and highest of the groups’ medians', () => {
  const groups = new Map([
    ['a', [1, 2, 3]],
    ['b', [10, 20, 30]],
    ['c', []],
  ]);
  expect(medianSpread(groups)).toEqual({ lowest: 2, highest: 20, spread: 18 });
  expect(medianSpread(new Map()).spread).toBeNaN();
});

describe('sustainedRate', () => {
  const minute = 60_000;
  test.each([
    [
      '20 at once, then 20 a minute for four minutes',
      [
        ...Array(20).fill(0),
        ...Array.from({ length: 80 }, (_, i) => minute * (1 + Math.floor(i / 20))),
      ],
      20,
    ],
    [
      'a window plus 2 % each time',
      [...Array(20).fill(0), ...Array(20).fill(1.02 * minute)],
      20 / 1.02,
    ],
    [
      'one every 3 s: 20 a minute from the start',
      Array.from({ length: 100 }, (_, i) => i * 3000),
      20,
    ],
    [
      'the first window spread over 6 s, each unit then used as it frees',
      Array.from({ length: 100 }, (_, i) => minute * Math.floor(i / 20) + (i % 20) * 300),
      20,
    ],
    [
      'the first window spread over 6 s, then each a second late',
      Array.from({ length: 40 }, (_, i) => (i < 20 ? i * 300 : minute + 1000 + (i - 20) * 300)),
      20 / (61 / 60),
    ],
    [
      'a partial window at the end is left out',
      [...Array(20).fill(0), ...Array(20).fill(minute), 2 * minute - 1],
      20,
    ],
    ['nothing beyond the first window', Array(20).fill(0), Number.NaN],
    ['less than a window beyond it', [...Array(20).fill(0), ...Array(19).fill(minute)], Number.NaN],
  ])('%s', (_name, times, expected) => {
    const rate = sustainedRate(times, 20, minute);
    if (Number.isNaN(expected)) expect(rate).toBeNaN();
    else expect(rate).toBeCloseTo(expected, 6);
  });

  /**
   * A stream the server accepts: the first window's worth anyhow, then each event at least a
   * window after the one `limit` before it (and not before the previous), `delays` late.
   */
  const accepted = (limit: number, first: readonly number[], delays: readonly number[]) => {
    const times = [...first].sort((a, b) => a - b);
    for (const delay of delays) {
      const k = times.length;
      times.push(Math.max(times[k - 1] ?? 0, (times[k - limit] ?? 0) + minute) + delay);
    }
    return times;
  };

  test('never above the limit for a stream the server accepts; exactly it when no unit waits', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 30 }).chain((limit) =>
          fc.tuple(
            fc.constant(limit),
            fc.array(fc.integer({ min: 0, max: minute - 1 }), {
              minLength: limit,
              maxLength: limit,
            }),
            fc.array(fc.integer({ min: 0, max: 5000 }), { maxLength: 120 }),
          ),
        ),
        ([limit, first, delays]) => {
          const rate = sustainedRate(accepted(limit, first, delays), limit, minute);
          const onTime = accepted(
            limit,
            first,
            delays.map(() => 0),
          );
          const prompt = sustainedRate(onTime, limit, minute);
          if (delays.length < limit) {
            expect([rate, prompt]).toEqual([Number.NaN, Number.NaN]);
            return;
          }
          expect(rate).toBeLessThanOrEqual(limit * (1 + 1e-9));
          expect(prompt).toBeCloseTo(limit, 6);
        },
      ),
    );
  });
});

test.each([
  [0.5, { max: 1 }, true],
  [1, { max: 1 }, true],
  [1.01, { max: 1 }, false],
  [19, { min: 19 }, true],
  [18.9, { min: 19 }, false],
  [Number.NaN, { max: 1 }, undefined],
  [1, undefined, undefined],
] as const)('meets(%d, %j) is %s', (value, target, expected) => {
  expect(meets(value, target)).toBe(expected);
});

test.each([
  [1, 4, '0.25×'],
  [30, 2, '15×'],
  [1, 0, ''],
  [Number.NaN, 1, ''],
])('formatRatio(%d, %d) = %s', (ours, naive, expected) => {
  expect(formatRatio(ours, naive)).toBe(expected);
});

test.each([
  [87.4, '87 ms'],
  [1234, '1.23 s'],
  [Number.NaN, '–'],
])('formatMs(%d) = %s', (ms, expected) => {
  expect(formatMs(ms)).toBe(expected);
});

test('markdownTable escapes pipes, marks missed targets, keeps row order', () => {
  const table = markdownTable([
    {
      section: 'A',
      measure: '|gap|',
      ours: '1',
      naive: '2',
      ratio: '0.50×',
      target: '≤ 1',
      met: true,
    },
    { section: 'B', measure: 'x', ours: '3', naive: '', ratio: '', target: '≤ 1', met: false },
    { section: 'C', measure: 'y', ours: '', naive: '', ratio: '', target: '', met: undefined },
  ]);
  const lines = table.split('\n');
  expect(lines).toHaveLength(5);
  expect(lines[2]).toBe('| A | \\|gap\\| | 1 | 2 | 0.50× | ≤ 1 | yes |');
  expect(lines[3]).toContain('| **no** |');
  expect(lines[4]?.endsWith('|  |  |  |')).toBe(true);
});

test('oursRow leaves the naive client, ratio and target empty unless a target is given', () => {
  expect(oursRow('S', 'm', '3 KB')).toEqual({
    section: 'S',
    measure: 'm',
    ours: '3 KB',
    naive: '',
    ratio: '',
    target: '',
    met: undefined,
  });
  expect(oursRow('S', 'm', '3 KB', { text: '< 15 KB', met: true })).toMatchObject({
    target: '< 15 KB',
    met: true,
  });
});
