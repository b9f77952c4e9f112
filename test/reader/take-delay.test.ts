import fc from 'fast-check';
import { expect, test } from 'vitest';
import { TAKE_AHEAD_SHARE, takeDelayMs } from '../../src/reader/pacing.ts';

test.each([
  { name: 'nothing ahead: take now', ahead: 0, window: 45_000, delay: 0 },
  { name: 'ahead within the share: take now', ahead: 20_000, window: 45_000, delay: 0 },
  { name: 'ahead exactly at the share: take now', ahead: 22_500, window: 45_000, delay: 0 },
  {
    name: 'ahead past the share: wait for the excess',
    ahead: 30_000,
    window: 45_000,
    delay: 7_500,
  },
  { name: 'ahead past the whole window', ahead: 60_000, window: 45_000, delay: 37_500 },
  { name: 'no window: never wait', ahead: 60_000, window: 0, delay: 0 },
  { name: 'a glitch (NaN) never waits', ahead: Number.NaN, window: 45_000, delay: 0 },
])('$name', ({ ahead, window, delay }) => {
  expect(takeDelayMs(ahead, window)).toBe(delay);
});

test('property: after waiting the delay, the speech ahead (playing down meanwhile) is within the share', () => {
  fc.assert(
    fc.property(
      fc.double({ min: 0, max: 1e7, noNaN: true }),
      fc.double({ min: 1, max: 1e7, noNaN: true }),
      (ahead, window) => {
        const delay = takeDelayMs(ahead, window);
        expect(delay).toBeGreaterThanOrEqual(0);
        expect(delay).toBeLessThanOrEqual(ahead);
        expect(ahead - delay).toBeLessThanOrEqual(window * TAKE_AHEAD_SHARE + 1e-6);
        // Never waits when the speech ahead already fits.
        if (ahead <= window * TAKE_AHEAD_SHARE) expect(delay).toBe(0);
      },
    ),
  );
});
