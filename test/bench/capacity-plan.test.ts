import { describe, expect, test } from 'vitest';
import {
  capacityOf,
  capacitySteps,
  DEFAULT_STEPS,
  holds,
  type StepOutcome,
  stutters,
} from '../../bench/capacity-plan.ts';

describe('capacitySteps', () => {
  test.each([
    [undefined, [...DEFAULT_STEPS]],
    ['', [...DEFAULT_STEPS]],
    ['8,16', [8, 16]],
    [' 24 , 8,8 ', [8, 24]],
    ['48', [48]],
  ])('BENCH_CAPACITY_STEPS=%j gives %j', (text, steps) => {
    expect(capacitySteps(text)).toEqual(steps);
  });

  test.each(['8,x', '0', '8,,16', '-4', '2.5'])('rejects %j', (text) => {
    expect(() => capacitySteps(text)).toThrow(/BENCH_CAPACITY_STEPS/);
  });
});

/** A step whose shapes had `gaps` (ms) and heard `heard` of their speech. */
function step(servers: number, ...shapes: [number[], number][]): StepOutcome {
  return { servers, shapes: shapes.map(([gaps, heardShare]) => ({ gaps, heardShare })) };
}

describe('holds', () => {
  test.each([
    ['no gap over 60 ms, all heard', step(8, [[20, 60, 40], 1], [[20], 0.99]), true],
    ['a gap of 61 ms in the short lines', step(8, [[20], 1], [[20, 61], 1]), false],
    ['a gap in the long sentence', step(8, [[400], 1], [[20], 1]), false],
    ['speech lost, though no gap', step(8, [[20], 1], [[20], 0.9]), false],
  ])('%s', (_, outcome, held) => {
    expect(holds(outcome)).toBe(held);
  });

  test('counts only gaps over 60 ms as stutters', () => {
    expect(stutters([20, 60, 60.5, 200, 21])).toEqual([60.5, 200]);
  });
});

describe('capacityOf', () => {
  const ok = (n: number) => step(n, [[20], 1], [[20], 1]);
  const gap = (n: number) => step(n, [[20, 120], 1], [[20], 1]);

  test('the largest step that held, every smaller one held too', () => {
    expect(capacityOf([ok(8), ok(16), ok(24), gap(32), gap(48)])).toEqual({
      holds: 24,
      failedBelow: [],
    });
  });

  test('none held', () => {
    expect(capacityOf([gap(8), gap(16)])).toEqual({ holds: undefined, failedBelow: [] });
  });

  test('a larger step held after a smaller one did not: the smaller one is named', () => {
    expect(capacityOf([ok(8), gap(16), ok(24), gap(32)])).toEqual({
      holds: 24,
      failedBelow: [16],
    });
  });
});
