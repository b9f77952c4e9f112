import { describe, expect, test } from 'vitest';
import { heardDelays, maxConcurrent, pairItems } from '../../bench/chat-heard.ts';

describe('heardDelays', () => {
  test('each message named in an item is heard at the item’s start', () => {
    const delays = heardDelays(
      [0, 100, 200],
      [
        { text: 'a said Message 0 wow. b said Message 1 nice.', startedAt: 1000 },
        { text: 'c said Message 2 lol.', startedAt: 3000 },
      ],
    );
    expect([...delays]).toEqual([
      [0, 1000],
      [1, 900],
      [2, 2800],
    ]);
  });

  test('a message heard twice counts at its first item; unknown indices are ignored', () => {
    const delays = heardDelays(
      [0],
      [
        { text: 'Message 0', startedAt: 50 },
        { text: 'Message 0 again, Message 7', startedAt: 90 },
      ],
    );
    expect([...delays]).toEqual([[0, 50]]);
  });
});

describe('pairItems', () => {
  test.each([
    { texts: ['a', 'b'], starts: [1, 2], n: 2, unpaired: 0 },
    { texts: ['a', 'b', 'c'], starts: [1], n: 1, unpaired: 2 },
    { texts: [], starts: [1, 2], n: 0, unpaired: 2 },
  ])('$texts with $starts', ({ texts, starts, n, unpaired }) => {
    const paired = pairItems(texts, starts);
    expect(paired.items).toHaveLength(n);
    expect(paired.unpaired).toBe(unpaired);
    expect(paired.items[0]).toEqual(n > 0 ? { text: texts[0], startedAt: starts[0] } : undefined);
  });
});

describe('maxConcurrent', () => {
  test.each([
    { spans: [], most: 0 },
    { spans: [{ start: 0, end: 10 }], most: 1 },
    {
      spans: [
        { start: 0, end: 10 },
        { start: 10, end: 20 },
      ],
      most: 1,
    },
    {
      spans: [
        { start: 0, end: 10 },
        { start: 5, end: 20 },
        { start: 6, end: 7 },
      ],
      most: 3,
    },
    {
      spans: [
        { start: 0, end: undefined },
        { start: 100, end: 200 },
      ],
      most: 2,
    },
  ])('$most at most', ({ spans, most }) => {
    expect(maxConcurrent(spans)).toBe(most);
  });
});
