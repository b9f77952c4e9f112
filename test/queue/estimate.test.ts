import { expect, test } from 'vitest';
import { estimateStart, expectedSpeechMs } from '../../src/queue/index.ts';

test.each([
  [{ now: 1000, aheadMs: [] }, 1000],
  [{ now: 1000, aheadMs: [2000, 3000] }, 6000],
  [{ now: 1000, playing: { startedAt: 0, expectedMs: 4000 }, aheadMs: [500] }, 4500],
  // The playing item overran its estimate: it ends now, not in the past.
  [{ now: 9000, playing: { startedAt: 0, expectedMs: 4000 }, aheadMs: [500] }, 9500],
  [{ now: 0, aheadMs: [-5, 10] }, 10],
])('%j starts at %d', (input, expected) => {
  expect(estimateStart(input)).toBe(expected);
});

test.each([
  [150, 1, 10_000],
  [150, 2, 5_000],
  [30, 0.5, 4_000],
])('%d characters at speed %d: %d ms', (characters, speed, expected) => {
  expect(expectedSpeechMs(characters, speed)).toBe(expected);
});
