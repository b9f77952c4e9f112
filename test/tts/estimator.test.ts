import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { type DurationBounds, GenerationEstimator } from '../../src/tts/estimator.ts';

type Row = readonly [number, DurationBounds];

function estimatorWith(rows: readonly Row[]): GenerationEstimator {
  const estimator = new GenerationEstimator();
  for (const [length, bounds] of rows) estimator.observe('base', length, bounds);
  return estimator;
}

describe('GenerationEstimator.estimate', () => {
  test.each<[string, readonly Row[], number, number]>([
    ['nothing known', [], 100, 0],
    ['one bracket: its middle at that length', [[100, { afterMs: 1800, byMs: 2200 }]], 100, 2000],
    ['one length: shorter texts scale down', [[100, { afterMs: 1800, byMs: 2200 }]], 50, 1000],
    [
      'one length: longer texts are not guessed longer',
      [[100, { afterMs: 1800, byMs: 2200 }]],
      400,
      2000,
    ],
    [
      'brackets on a line: the line',
      [
        [100, { afterMs: 1900, byMs: 2100 }],
        [200, { afterMs: 2900, byMs: 3100 }],
        [300, { afterMs: 3900, byMs: 4100 }],
      ],
      400,
      5000,
    ],
    [
      'an upper bound below the line pulls it down to the highest value it allows',
      [
        [100, { afterMs: 1000, byMs: 3000 }],
        [100, { afterMs: 0, byMs: 1200 }],
      ],
      100,
      1200,
    ],
    [
      'an upper bound above the line says nothing',
      [
        [100, { afterMs: 1900, byMs: 2100 }],
        [100, { afterMs: 0, byMs: 9000 }],
      ],
      100,
      2000,
    ],
  ])('%s', (_name, rows, length, expected) => {
    const estimator = estimatorWith(rows);
    expect(estimator.estimate('base', length)).toBeCloseTo(expected, 0);
    expect(estimator.estimate('advance', length)).toBe(0);
  });

  test('the estimate lies within every bracket when the brackets agree with some line', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 500, max: 5000 }),
        fc.integer({ min: 0, max: 100 }),
        fc.array(
          fc.record({
            length: fc.integer({ min: 1, max: 1000 }),
            below: fc.integer({ min: 1, max: 400 }),
            above: fc.integer({ min: 1, max: 400 }),
          }),
          { minLength: 2, maxLength: 30 },
        ),
        (intercept, slope, rows) => {
          const estimator = new GenerationEstimator();
          const truth = (length: number) => intercept + slope * length;
          for (const { length, below, above } of rows) {
            estimator.observe('base', length, {
              afterMs: truth(length) - below,
              byMs: truth(length) + above,
            });
          }
          for (const { length, below, above } of rows) {
            const estimate = estimator.estimate('base', length);
            expect(estimate).toBeGreaterThanOrEqual(truth(length) - below - 1);
            expect(estimate).toBeLessThanOrEqual(truth(length) + above + 1);
          }
        },
      ),
    );
  });
});

describe('GenerationEstimator first poll', () => {
  test('nothing known: no timed first poll', () => {
    expect(new GenerationEstimator().firstPollAfter('base', 50)).toBe(0);
  });

  test('misses move the first poll later, hits earlier, and a miss weighs four hits', () => {
    const estimator = estimatorWith([[50, { afterMs: 1900, byMs: 2100 }]]);
    const start = estimator.firstPollAfter('base', 50);
    expect(start).toBe(2000);
    estimator.firstPollResult('base', false);
    const afterMiss = estimator.firstPollAfter('base', 50);
    expect(afterMiss).toBeGreaterThan(start);
    for (let i = 0; i < 4; i++) estimator.firstPollResult('base', true);
    expect(estimator.firstPollAfter('base', 50)).toBeCloseTo(start, 6);
    estimator.firstPollResult('base', true);
    expect(estimator.firstPollAfter('base', 50)).toBeLessThan(start);
  });

  test('with fixed generation times, about four first polls in five find the task done', () => {
    fc.assert(
      fc.property(fc.integer({ min: 300, max: 20_000 }), (duration) => {
        const estimator = estimatorWith([[50, { afterMs: duration - 50, byMs: duration + 50 }]]);
        let hits = 0;
        const rounds = 400;
        for (let i = 0; i < rounds; i++) {
          const done = estimator.firstPollAfter('base', 50) >= duration;
          if (done) hits++;
          estimator.firstPollResult('base', done);
        }
        expect(hits / rounds).toBeGreaterThan(0.7);
        expect(hits / rounds).toBeLessThan(0.9);
      }),
    );
  });
});
