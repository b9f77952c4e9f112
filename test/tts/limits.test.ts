import { describe, expect, test } from 'vitest';
import { DEFAULT_LIMITS, parseLimits } from '../../src/tts/limits.ts';

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
