import { describe, expect, test } from 'vitest';
import {
  capacityOf,
  capacitySteps,
  DEFAULT_STEPS,
  holds,
  lessReceiverLateness,
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

/** A step whose shapes had `gaps` (ms; less the receiver's lateness: `botGaps`, else the same) and heard `heard` of their speech. */
function step(servers: number, ...shapes: [number[], number, number[]?][]): StepOutcome {
  return {
    servers,
    shapes: shapes.map(([gaps, heardShare, botGaps]) => ({
      gaps,
      botGaps: botGaps ?? gaps,
      heardShare,
    })),
  };
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

  test("counts the gaps as stamped unless told to count them less the receiver's lateness", () => {
    const late = step(8, [[20, 90], 1, [20, 45]], [[20], 1]);
    expect(holds(late)).toBe(false);
    expect(holds(late, 'gaps')).toBe(false);
    expect(holds(late, 'botGaps')).toBe(true);
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

  test("counted less the receiver's lateness, a step it alone failed holds", () => {
    const receiverLate = (n: number) => step(n, [[20, 120], 1, [20, 50]], [[20], 1]);
    expect(capacityOf([ok(8), receiverLate(16), gap(24)], 'botGaps')).toEqual({
      holds: 16,
      failedBelow: [],
    });
    expect(capacityOf([ok(8), receiverLate(16), gap(24)]).holds).toBe(8);
  });

  test('a larger step held after a smaller one did not: the smaller one is named', () => {
    expect(capacityOf([ok(8), gap(16), ok(24), gap(32)])).toEqual({
      holds: 24,
      failedBelow: [16],
    });
  });
});

describe('lessReceiverLateness', () => {
  // A receiver ticking every 1 ms from 0 to 100, stalled from 100 to 140, ticking again after.
  const ticks = [
    ...Array.from({ length: 101 }, (_, i) => i),
    ...Array.from({ length: 60 }, (_, i) => 140 + i),
  ];

  test.each([
    ['ended while the receiver was idle: less under one tick', { ms: 80, endedAt: 50.5 }, 79.5],
    ['ended just after its 40 ms stall: the stall taken off', { ms: 80, endedAt: 140.2 }, 40.8],
    ['a stall longer than the gap: nothing left', { ms: 30, endedAt: 140.2 }, 0],
    ['ended before any tick: nothing known, kept whole', { ms: 80, endedAt: -5 }, 80],
    ['ended at the first tick: no tick before it, kept whole', { ms: 80, endedAt: 0 }, 80],
  ])('%s', (_, gap, left) => {
    const [kept] = lessReceiverLateness([gap], ticks, 1);
    expect(kept).toBeCloseTo(left, 6);
  });

  test('never adds to a gap', () => {
    const gaps = [10, 61, 200].map((ms, i) => ({ ms, endedAt: 20 + i * 50 }));
    const kept = lessReceiverLateness(gaps, ticks, 1);
    kept.forEach((k, i) => {
      expect(k).toBeLessThanOrEqual(gaps[i]?.ms ?? 0);
      expect(k).toBeGreaterThanOrEqual(0);
    });
  });
});
