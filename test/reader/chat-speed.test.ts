import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  API_SPEED,
  CALM_BELOW,
  CALM_STEP_MS,
  compactGlue,
  DEFAULT_MAX_SPEED,
  SPEED_STEPS,
  SPEED_UP_AT,
  SpeedAwareRate,
  speedFor,
  speedSteps,
} from '../../src/reader/chat-speed.ts';
import { SpeechRate } from '../../src/reader/speech-rate.ts';

const MAX_AGE = 60_000;
const input = (
  current: number,
  waitShare: number,
  baseSpeed = 1,
  maxSpeed = DEFAULT_MAX_SPEED,
) => ({
  forecastWaitMs: waitShare * MAX_AGE,
  maxAgeMs: MAX_AGE,
  baseSpeed,
  maxSpeed,
  current,
});

describe('speedSteps', () => {
  test.each([
    [1.5, [1, 1.15, 1.3, 1.5]],
    [1.4, [1, 1.15, 1.3, 1.4]],
    [2, [1, 1.15, 1.3, 1.5, 1.75, 2]],
    [3, [1, 1.15, 1.3, 1.5, 1.75, 2]],
    [1, [1]],
    [0.8, [1]],
  ])('max-speed %d steps through %j', (max, steps) => {
    expect(speedSteps(max)).toEqual(steps);
  });
});

describe('speedFor', () => {
  test.each([
    { name: 'calm chat keeps the base speed', current: 1, share: 0.1, factor: 1, speed: 1 },
    { name: 'over half of max-age: a step up', current: 1, share: 0.6, factor: 1.15, speed: 1.15 },
    { name: 'still late: the next step', current: 1.15, share: 0.9, factor: 1.3, speed: 1.3 },
    { name: 'the top step holds', current: 1.5, share: 3, factor: 1.5, speed: 1.5 },
    {
      name: 'between a quarter and a half: hold',
      current: 1.3,
      share: 0.4,
      factor: 1.3,
      speed: 1.3,
    },
    { name: 'calm again: a step down', current: 1.3, share: 0.2, factor: 1.15, speed: 1.15 },
    {
      name: 'the member’s speed is the base',
      current: 1.15,
      share: 0.6,
      base: 1.2,
      factor: 1.3,
      speed: 1.56,
    },
    {
      name: 'never past what the API takes',
      current: 1.3,
      share: 0.6,
      base: 1.8,
      factor: 1.5,
      speed: 2,
    },
    {
      name: 'a slow voice speeds up from its own speed',
      current: 1,
      share: 0.6,
      base: 0.6,
      factor: 1.15,
      speed: 0.69,
    },
    { name: 'max-speed 1 turns it off', current: 1, share: 5, max: 1, factor: 1, speed: 1 },
    {
      name: 'a lowered max-speed pulls a step back',
      current: 1.5,
      share: 0.4,
      max: 1.3,
      factor: 1.3,
      speed: 1.3,
    },
    { name: 'no max-age: no pressure', current: 1.15, share: 0, factor: 1, speed: 1 },
  ])('$name', ({ current, share, base = 1, max = DEFAULT_MAX_SPEED, factor, speed }) => {
    expect(speedFor(input(current, share, base, max))).toEqual({ factor, speed });
  });

  test.each([
    {
      name: 'a second of silence after 1.3×: down a step, then the calm step',
      quietMs: 1000,
      factor: 1,
    },
    {
      name: 'three seconds of silence after 1.75×: the base speed',
      current: 1.75,
      quietMs: 3000,
      max: 2,
      factor: 1,
    },
    { name: 'under a second of silence: the calm step only', quietMs: 999, factor: 1.15 },
    {
      name: 'silence, then a burst: down for the silence, up for the burst (holds)',
      quietMs: 1000,
      share: 0.6,
      factor: 1.3,
    },
  ])('$name', ({ current = 1.3, quietMs, share = 0.1, max = DEFAULT_MAX_SPEED, factor }) => {
    expect(speedFor({ ...input(current, share, 1, max), quietMs }).factor).toBe(factor);
  });

  test('property: silence never speeds up, and enough of it brings any speed back to the base', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...SPEED_STEPS),
        fc.double({ min: 0, max: 4, noNaN: true }),
        fc.nat(10_000),
        (current, share, quietMs) => {
          const loud = speedFor(input(current, share, 1, 2));
          const quiet = speedFor({ ...input(current, share, 1, 2), quietMs });
          expect(quiet.factor).toBeLessThanOrEqual(loud.factor);
          const calmed = speedFor({ ...input(current, 0, 1, 2), quietMs: 5 * CALM_STEP_MS });
          expect(calmed).toEqual({ factor: 1, speed: 1 });
        },
      ),
    );
  });

  test('property: within the base speed and max-speed, one step per turn, no flapping under a steady load', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 4, noNaN: true }),
        fc.double({ min: 0.5, max: 2, noNaN: true }),
        fc.double({ min: 0.5, max: 2.5, noNaN: true }),
        fc.integer({ min: 1, max: 30 }),
        (load, base, max, turns) => {
          // `load` is the backlog's wait at speed 1, as a share of max-age: faster speech shortens it.
          let factor = 1;
          const factors = [factor];
          for (let i = 0; i < turns; i++) {
            const chosen = speedFor(input(factor, load / factor, base, max));
            expect(chosen.speed).toBeGreaterThanOrEqual(base - 1e-9);
            expect(chosen.speed).toBeLessThanOrEqual(
              Math.min(API_SPEED.max, base * Math.max(1, max)) + 0.01,
            );
            const steps = speedSteps(max);
            expect(
              Math.abs(steps.indexOf(chosen.factor) - steps.indexOf(factor)),
            ).toBeLessThanOrEqual(1);
            factor = chosen.factor;
            factors.push(factor);
          }
          const rising = factors.every((f, i) => i === 0 || f >= (factors[i - 1] ?? f));
          const falling = factors.every((f, i) => i === 0 || f <= (factors[i - 1] ?? f));
          expect(rising || falling).toBe(true);
        },
      ),
    );
  });
});

describe('compactGlue', () => {
  test.each([
    { name: 'calm, full form: stays full', share: 0.1, current: false, compact: false },
    { name: 'past half of max-age: compact', share: 0.51, current: false, compact: true },
    {
      name: 'between the thresholds, full: holds full',
      share: 0.4,
      current: false,
      compact: false,
    },
    {
      name: 'between the thresholds, compact: holds compact',
      share: 0.3,
      current: true,
      compact: true,
    },
    { name: 'at half exactly: holds', share: 0.5, current: false, compact: false },
    { name: 'below a quarter: full again', share: 0.24, current: true, compact: false },
    { name: 'no max-age: full', share: 0, current: true, compact: false, maxAge: 0 },
  ])('$name', ({ share, current, compact, maxAge = MAX_AGE }) => {
    expect(compactGlue(share * MAX_AGE, maxAge, current)).toBe(compact);
  });

  test('property: it switches only across its thresholds, so a load between them never flaps', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 2, noNaN: true }), { minLength: 1, maxLength: 40 }),
        fc.boolean(),
        (shares, start) => {
          let compact = start;
          for (const share of shares) {
            const next = compactGlue(share * MAX_AGE, MAX_AGE, compact);
            if (next && !compact) expect(share).toBeGreaterThan(SPEED_UP_AT);
            if (!next && compact) expect(share).toBeLessThan(CALM_BELOW);
            if (share >= CALM_BELOW && share <= SPEED_UP_AT) expect(next).toBe(compact);
            compact = next;
          }
        },
      ),
    );
  });
});

describe('SpeedAwareRate', () => {
  test('learns the rate at speed 1 from a turn played faster, and forecasts by 1/speed', () => {
    const rate = new SpeedAwareRate(60);
    rate.observe(100, (100 * 60) / 1.5, 1.5);
    expect(rate.msPerCharAtNormal).toBeCloseTo(60);
    expect(rate.msPerChar(1.5)).toBeCloseTo(40);
    expect(rate.msPerChar(2)).toBeCloseTo(30);
  });

  test('property: forecasts stay right while the speed changes from turn to turn', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 20, max: 120 }),
        fc.integer({ min: 5, max: 400 }),
        fc.array(
          fc.tuple(fc.integer({ min: 20, max: 600 }), fc.constantFrom(0.5, 1, 1.15, 1.3, 1.5, 2)),
          {
            minLength: 60,
            maxLength: 100,
          },
        ),
        (truth, initial, turns) => {
          // The same voice at speed 1 takes `truth` ms per character; each turn at its speed 1/speed of that.
          const aware = new SpeedAwareRate(initial);
          const plain = new SpeechRate(truth);
          let plainOff = 0;
          turns.forEach(([characters, speed], i) => {
            const actualMs = (characters * truth) / speed;
            if (i >= 40) expect(aware.msPerChar(speed) * characters).toBeCloseTo(actualMs, -1);
            plainOff = Math.max(
              plainOff,
              Math.abs(plain.msPerChar * characters - actualMs) / actualMs,
            );
            aware.observe(characters, actualMs, speed);
            plain.observe(characters, actualMs);
          });
          // Without the speed, the old model is off whenever the speed changes (unless it never does).
          const changes = turns.some(([, s], i) => i > 0 && s !== turns[i - 1]?.[1]);
          if (changes) expect(plainOff).toBeGreaterThan(0.05);
        },
      ),
    );
  });
});
