import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { backoffDelay, DEFAULT_BACKOFF } from '../../src/twitch/backoff.ts';
import { joinAllowance } from '../../src/twitch/joins.ts';
import { ChannelReaders, twitchLogin } from '../../src/twitch/readers.ts';
import { RecentIds } from '../../src/twitch/recent-ids.ts';

describe('backoffDelay', () => {
  test.each([
    [0, 0, 500],
    [0, 0.999_999, 1000],
    [1, 0, 1000],
    [3, 0.5, 6000],
    [20, 0, 30_000],
    [20, 0.999_999, 60_000],
  ])('attempt %i, random %d → %i ms', (attempt, random, ms) => {
    expect(backoffDelay(attempt, () => random, DEFAULT_BACKOFF)).toBe(ms);
  });

  test('always within half and all of the capped step, and never above the cap', () => {
    fc.assert(
      fc.property(
        fc.nat(100),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (n, r) => {
          const step = Math.min(60_000, 1000 * 2 ** n);
          const delay = backoffDelay(n, () => r, DEFAULT_BACKOFF);
          expect(delay).toBeGreaterThanOrEqual(step / 2);
          expect(delay).toBeLessThanOrEqual(Math.min(step, 60_000));
        },
      ),
    );
  });
});

describe('joinAllowance', () => {
  const limit = { count: 3, windowMs: 1000 };
  test.each([
    { sentAt: [], now: 5000, allowed: 3, waitMs: 0 },
    { sentAt: [4500, 4600], now: 5000, allowed: 1, waitMs: 0 },
    { sentAt: [4500, 4600, 4700], now: 5000, allowed: 0, waitMs: 500 },
    { sentAt: [3000, 3100, 4700], now: 5000, allowed: 2, waitMs: 0 },
  ])('$sentAt at $now', ({ sentAt, now, allowed, waitMs }) => {
    expect(joinAllowance(sentAt, now, limit)).toEqual({ now: allowed, waitMs });
  });
});

describe('ChannelReaders', () => {
  test('a channel is joined by its first reader and parted by its last', () => {
    const readers = new ChannelReaders();
    expect(readers.add('g1', 'chan')).toBe(true);
    expect(readers.add('g2', 'chan')).toBe(false);
    expect(readers.add('g2', 'chan')).toBe(false);
    expect(readers.readersOf('chan')).toEqual(['g1', 'g2']);
    expect(readers.remove('g1', 'chan')).toBe(false);
    expect(readers.remove('g1', 'chan')).toBe(false);
    expect(readers.remove('g2', 'chan')).toBe(true);
    expect(readers.channels()).toEqual([]);
  });

  test('channelsOf lists one server’s channels', () => {
    const readers = new ChannelReaders();
    readers.add('g1', 'a');
    readers.add('g2', 'b');
    readers.add('g1', 'c');
    expect(readers.channelsOf('g1')).toEqual(['a', 'c']);
  });
});

describe('twitchLogin', () => {
  test.each([
    ['#Dallas', 'dallas'],
    ['  some_one42 ', 'some_one42'],
    ['', undefined],
    ['with space', undefined],
    ['a'.repeat(26), undefined],
    ['https://twitch.tv/x', undefined],
  ])('%j → %j', (text, login) => {
    expect(twitchLogin(text)).toBe(login);
  });
});

describe('RecentIds', () => {
  test('a repeat within the window is refused; the oldest is forgotten past capacity', () => {
    const ids = new RecentIds(2);
    expect(ids.add('a')).toBe(true);
    expect(ids.add('a')).toBe(false);
    expect(ids.add('b')).toBe(true);
    expect(ids.add('c')).toBe(true);
    expect(ids.size).toBe(2);
    expect(ids.add('a')).toBe(true);
    expect(ids.add('c')).toBe(false);
  });
});
