import { describe, expect, test } from 'vitest';
import {
  DEFAULT_GENERATION,
  describeShape,
  generationShape,
  generationTimes,
  runSeed,
  voicesRuns,
} from '../../bench/many-voices-plan.ts';

describe('voicesRuns', () => {
  test.each([
    [
      false,
      {},
      [
        { servers: 12, format: 'wav' },
        { servers: 24, format: 'wav' },
        { servers: 48, format: 'wav' },
        { servers: 24, format: 'mp3' },
      ],
    ],
    [
      false,
      { BENCH_VOICES_FORMATS: 'wav' },
      [12, 24, 48].map((servers) => ({ servers, format: 'wav' })),
    ],
    [
      false,
      { BENCH_VOICES_FORMATS: 'MP3, ogg' },
      [
        { servers: 24, format: 'mp3' },
        { servers: 24, format: 'ogg' },
      ],
    ],
    [true, {}, [{ servers: 4, format: 'wav' }]],
    [true, { BENCH_VOICES_QUICK: '24' }, [{ servers: 24, format: 'wav' }]],
    [
      true,
      { BENCH_VOICES_QUICK: '24', BENCH_VOICES_FORMATS: 'wav,mp3' },
      [
        { servers: 24, format: 'wav' },
        { servers: 24, format: 'mp3' },
      ],
    ],
  ])('quick %s with %j', (quick, env, expected) => {
    expect(voicesRuns(quick, env)).toEqual(expected);
  });

  test.each([
    [true, { BENCH_VOICES_QUICK: 'many' }],
    [false, { BENCH_VOICES_FORMATS: 'flac' }],
  ])('quick %s with %j is refused, naming the variable', (quick, env) => {
    expect(() => voicesRuns(quick, env)).toThrow(/BENCH_VOICES_/);
  });
});

describe('generation shapes', () => {
  test.each([
    [undefined, DEFAULT_GENERATION],
    ['spread', DEFAULT_GENERATION],
    ['1500', { kind: 'fixed', ms: 1500 }],
    ['500-900', { kind: 'spread', minMs: 500, maxMs: 900 }],
  ])('%s', (text, shape) => {
    expect(generationShape(text)).toEqual(shape);
  });

  test.each(['fast', '900-500'])('%s is refused', (text) => {
    expect(() => generationShape(text)).toThrow(/BENCH_VOICES_GENERATION/);
  });

  test('the default spread stays within 0.6–4 s, differs between requests, and repeats with its seed', () => {
    const draw = (seed: number) => {
      const next = generationTimes(DEFAULT_GENERATION, seed);
      return Array.from({ length: 200 }, () => next());
    };
    const times = draw(7);
    expect(Math.min(...times)).toBeGreaterThanOrEqual(600);
    expect(Math.max(...times)).toBeLessThanOrEqual(4000);
    expect(new Set(times).size).toBeGreaterThan(100);
    expect(draw(7)).toEqual(times);
    expect(draw(8)).not.toEqual(times);
  });

  test('a fixed shape answers its time every time', () => {
    const next = generationTimes({ kind: 'fixed', ms: 1500 }, 1);
    expect([next(), next()]).toEqual([1500, 1500]);
  });

  test('rows name the shape', () => {
    expect(describeShape(DEFAULT_GENERATION)).toBe('generation 0.6–4 s per request, seeded');
    expect(describeShape({ kind: 'fixed', ms: 1500 })).toBe('generation 1.5 s for every request');
  });

  test('each run has its own seed, whichever runs are chosen', () => {
    const seeds = voicesRuns(false, { BENCH_VOICES_FORMATS: 'wav,mp3,ogg' }).map(runSeed);
    expect(new Set(seeds).size).toBe(seeds.length);
    expect(runSeed({ servers: 24, format: 'mp3' })).toBe(
      runSeed(
        voicesRuns(true, { BENCH_VOICES_QUICK: '24', BENCH_VOICES_FORMATS: 'mp3' })[0] ?? {
          servers: 0,
          format: 'wav',
        },
      ),
    );
  });
});
