import fc from 'fast-check';
import { expect, test } from 'vitest';
import { RATE_BOUNDS, SpeechRate } from '../../src/reader/speech-rate.ts';

test('starts at the textbook rate of 15 characters a second', () => {
  expect(new SpeechRate().msPerChar).toBeCloseTo(1000 / 15);
});

test.each([
  { name: 'a short turn teaches nothing', turns: [[10, 5000]], rate: 50 },
  { name: 'no duration teaches nothing', turns: [[100, 0]], rate: 50 },
  { name: 'the first turn replaces the textbook start', turns: [[100, 2000]], rate: 20 },
  {
    name: 'the first turns are averaged plainly',
    turns: [
      [100, 2000],
      [100, 4000],
      [100, 6000],
    ],
    rate: 40,
  },
  {
    name: 'past the first turns, one moves 30 % of the way',
    turns: [
      [100, 2000],
      [100, 2000],
      [100, 2000],
      [100, 5000],
    ],
    rate: 20 + 0.3 * 30,
  },
  {
    name: 'a glitch counts as the bound at most',
    turns: [[100, 10_000_000]],
    rate: 400,
  },
])('$name', ({ turns, rate }) => {
  const speech = new SpeechRate(50);
  for (const [characters = 0, ms = 0] of turns) speech.observe(characters, ms);
  expect(speech.msPerChar).toBeCloseTo(rate);
});

test('property: the same rate over and over is learned, and the estimate stays within bounds', () => {
  fc.assert(
    fc.property(
      fc.array(
        fc.tuple(fc.integer({ min: 0, max: 2000 }), fc.double({ min: -1, max: 1e7, noNaN: true })),
      ),
      fc.integer({ min: 20, max: 120 }),
      (turns, steady) => {
        const speech = new SpeechRate();
        for (const [characters, ms] of turns) {
          speech.observe(characters, ms);
          expect(speech.msPerChar).toBeGreaterThanOrEqual(RATE_BOUNDS.min);
          expect(speech.msPerChar).toBeLessThanOrEqual(RATE_BOUNDS.max);
        }
        for (let i = 0; i < 60; i++) speech.observe(300, 300 * steady);
        expect(speech.msPerChar).toBeCloseTo(steady, 3);
      },
    ),
  );
});
