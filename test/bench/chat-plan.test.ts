import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  chatScript,
  messagesRead,
  playedInOrderUntil,
  seededRandom,
} from '../../bench/chat-plan.ts';

describe('chatScript', () => {
  test('the benchmark chat: 300 lines in order over the duration, from every member, 12 to 80 characters', () => {
    const script = chatScript({ messages: 300, members: 20, durationMs: 75_000 });
    expect(script).toHaveLength(300);
    expect(script.map((line) => line.index)).toEqual([...Array(300).keys()]);
    const times = script.map((line) => line.atMs);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(Math.min(...times)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...times)).toBeLessThanOrEqual(75_000);
    expect(new Set(script.map((line) => line.member)).size).toBe(20);
    for (const line of script) {
      expect(line.text.startsWith(`Message ${line.index}`)).toBe(true);
      expect(line.text.length).toBeGreaterThanOrEqual(12);
      expect(line.text.length).toBeLessThanOrEqual(80 + 'stream'.length);
    }
  });

  test('the same seed plays the same chat; another seed another one', () => {
    const shape = { messages: 50, members: 5, durationMs: 10_000 };
    expect(chatScript(shape)).toEqual(chatScript(shape));
    expect(chatScript({ ...shape, seed: 1 })).not.toEqual(chatScript(shape));
  });

  test('seededRandom stays in [0, 1)', () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const next = seededRandom(seed);
        for (let i = 0; i < 50; i++) {
          const value = next();
          expect(value).toBeGreaterThanOrEqual(0);
          expect(value).toBeLessThan(1);
        }
      }),
    );
  });
});

describe('messagesRead', () => {
  test('finds every message a batch text holds, and only whole numbers', () => {
    const texts = [
      'alice said Message 3 wow nice. bob said Message 12 lol',
      'carol said Message 120 great play',
      'Messages 7 and Message 4x are not messages',
    ];
    expect([...messagesRead(texts)].sort((a, b) => a - b)).toEqual([3, 12, 120]);
  });

  test('every line of a script read back is found', () => {
    const script = chatScript({ messages: 40, members: 4, durationMs: 1000 });
    const batches = [script.slice(0, 17), script.slice(17)].map((lines) =>
      lines.map((line) => `member${line.member} said ${line.text}`).join('. '),
    );
    expect(messagesRead(batches).size).toBe(40);
  });
});

describe('playedInOrderUntil', () => {
  test.each([
    { audios: [], end: Number.NEGATIVE_INFINITY },
    { audios: [{ readyAt: 10, durationMs: 5 }], end: 15 },
    // The second waits for the first to end.
    {
      audios: [
        { readyAt: 0, durationMs: 10 },
        { readyAt: 2, durationMs: 10 },
      ],
      end: 20,
    },
    // Silence while the second is not ready.
    {
      audios: [
        { readyAt: 0, durationMs: 1 },
        { readyAt: 50, durationMs: 10 },
      ],
      end: 60,
    },
    // Order is kept even when a later one is ready first.
    {
      audios: [
        { readyAt: 30, durationMs: 5 },
        { readyAt: 0, durationMs: 5 },
      ],
      end: 40,
    },
  ])('$audios ends at $end', ({ audios, end }) => {
    expect(playedInOrderUntil(audios)).toBe(end);
  });

  test('never before every audio was ready and played, never after all of them back to back from the last ready', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ readyAt: fc.nat(10_000), durationMs: fc.nat(5_000) }), {
          minLength: 1,
        }),
        (audios) => {
          const end = playedInOrderUntil(audios);
          const total = audios.reduce((sum, a) => sum + a.durationMs, 0);
          for (const a of audios) expect(end).toBeGreaterThanOrEqual(a.readyAt + a.durationMs);
          expect(end).toBeGreaterThanOrEqual(total);
          expect(end).toBeLessThanOrEqual(Math.max(...audios.map((a) => a.readyAt)) + total);
        },
      ),
    );
  });
});
