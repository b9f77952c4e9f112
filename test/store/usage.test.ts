import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import Keyv from 'keyv';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  addGeneration,
  emptyDay,
  KeyvUsageLedger,
  nextUtcDay,
  openKeyv,
  utcDay,
} from '../../src/store/index.ts';
import { startRedis, type TestRedis } from '../support/redis.ts';

const DAY = 86_400_000;
const NOON = Date.UTC(2026, 4, 10, 12); // 2026-05-10 12:00 UTC

describe('days', () => {
  test.each([
    [Date.UTC(2026, 4, 10), '2026-05-10', Date.UTC(2026, 4, 11)],
    [Date.UTC(2026, 4, 10, 23, 59, 59, 999), '2026-05-10', Date.UTC(2026, 4, 11)],
    [Date.UTC(2026, 11, 31, 12), '2026-12-31', Date.UTC(2027, 0, 1)],
    [Date.UTC(2028, 1, 28, 1), '2028-02-28', Date.UTC(2028, 1, 29)],
  ])('%d is on %s; the next day starts at %d', (at, day, next) => {
    expect(utcDay(at)).toBe(day);
    expect(nextUtcDay(at)).toBe(next);
  });

  test('30 days back over a month end and a leap day: 30 consecutive UTC days, today last', async () => {
    const ledger = new KeyvUsageLedger(new Keyv());
    for (const at of [Date.UTC(2028, 1, 2), Date.UTC(2028, 1, 29, 23, 59), Date.UTC(2028, 2, 1, 6)])
      await ledger.record('g', 'a', at, { tokens: 8, micros: 8 });
    const now = Date.UTC(2028, 2, 2, 0, 30); // 00:30 UTC on 2 March
    const days = await ledger.days('g', now - 29 * DAY, now);
    expect(days.map((day) => day.day)).toEqual(
      Array.from({ length: 30 }, (_, i) => utcDay(Date.UTC(2028, 1, 2) + i * DAY)),
    );
    expect(days.at(-1)?.day).toBe('2028-03-02');
    expect(days.filter((day) => day.spend?.micros === 8).map((day) => day.day)).toEqual([
      '2028-02-02',
      '2028-02-29',
      '2028-03-01',
    ]);
  });

  test('addGeneration counts the member and the total, leaving the input alone', () => {
    const before = emptyDay('2026-05-10');
    const after = addGeneration(addGeneration(before, 'a'), 'b');
    expect(addGeneration(after, 'a')).toEqual({
      day: '2026-05-10',
      total: 3,
      members: { a: 2, b: 1 },
    });
    expect(before).toEqual(emptyDay('2026-05-10'));
  });
});

/** Runs the ledger checks on one store. */
function ledgerSuite(name: string, open: () => Promise<Keyv>) {
  describe(`KeyvUsageLedger on ${name}`, () => {
    test('counts per server, member and day; a new process reads the same counts', async () => {
      const keyv = await open();
      const ledger = new KeyvUsageLedger(keyv);
      expect(ledger.memberToday('g1', 'a', NOON)).toBeUndefined(); // not loaded yet
      await ledger.load('g1', NOON);
      expect(ledger.memberToday('g1', 'a', NOON)).toBe(0);
      await Promise.all([
        ledger.record('g1', 'a', NOON),
        ledger.record('g1', 'a', NOON + 1),
        ledger.record('g1', 'b', NOON + 2),
        ledger.record('g2', 'a', NOON),
        ledger.record('g1', 'a', NOON - DAY),
      ]);
      expect(ledger.memberToday('g1', 'a', NOON)).toBe(2);
      const again = new KeyvUsageLedger(keyv);
      await again.load('g1', NOON);
      expect(again.memberToday('g1', 'a', NOON)).toBe(2);
      expect(again.memberToday('g1', 'b', NOON)).toBe(1);
      expect(await again.days('g1', NOON - 2 * DAY, NOON)).toEqual([
        { day: '2026-05-08', total: 0, members: {} },
        { day: '2026-05-09', total: 1, members: { a: 1 } },
        { day: '2026-05-10', total: 3, members: { a: 2, b: 1 } },
      ]);
      expect((await again.days('g2', NOON, NOON))[0]?.members).toEqual({ a: 1 });
      await keyv.disconnect();
    });

    test('concurrent records from a cold start lose nothing', async () => {
      const keyv = await open();
      const ledger = new KeyvUsageLedger(keyv);
      await Promise.all(
        Array.from({ length: 30 }, (_, i) => ledger.record('g3', `m${i % 3}`, NOON)),
      );
      const [day] = await new KeyvUsageLedger(keyv).days('g3', NOON, NOON);
      expect(day).toEqual({ day: '2026-05-10', total: 30, members: { m0: 10, m1: 10, m2: 10 } });
      await keyv.disconnect();
    });

    test('after midnight the count starts again; the day before stays readable', async () => {
      const keyv = await open();
      const ledger = new KeyvUsageLedger(keyv);
      await ledger.record('g4', 'a', NOON);
      await ledger.record('g5', 'a', NOON);
      expect(ledger.cachedServers).toBe(2);
      const tomorrow = nextUtcDay(NOON) + 1;
      await ledger.load('g4', tomorrow);
      expect(ledger.memberToday('g4', 'a', tomorrow)).toBe(0);
      await ledger.record('g4', 'a', tomorrow);
      expect((await ledger.days('g4', NOON, tomorrow)).map((d) => d.total)).toEqual([1, 1]);
      expect(ledger.cachedServers).toBe(1); // g5's day is over: no longer held in memory
      expect((await ledger.days('g5', NOON, NOON))[0]?.total).toBe(1);
      await keyv.disconnect();
    });
  });
}

let redis: TestRedis;
let dir: string;
beforeAll(async () => {
  redis = await startRedis();
  dir = await mkdtemp(join(tmpdir(), 'usage-'));
});
afterAll(async () => {
  await redis?.stop();
  await rm(dir, { recursive: true, force: true });
});

let n = 0;
ledgerSuite('SQLite', () => openKeyv(`sqlite://${dir}/store-${++n}.sqlite`));
ledgerSuite('Redis', async () => {
  const keyv = await openKeyv(redis.url, `usage-test-${++n}`);
  return keyv;
});

test('a failed write keeps the count in memory; the next write stores both', async () => {
  const keyv = new Keyv();
  const ledger = new KeyvUsageLedger(keyv);
  await ledger.load('g', NOON);
  const set = keyv.set.bind(keyv);
  keyv.set = async () => {
    throw new Error('store away');
  };
  await expect(ledger.record('g', 'a', NOON)).rejects.toThrow('store away');
  expect(ledger.memberToday('g', 'a', NOON)).toBe(1);
  keyv.set = set;
  await ledger.record('g', 'a', NOON);
  expect((await new KeyvUsageLedger(keyv).days('g', NOON, NOON))[0]?.members).toEqual({ a: 2 });
});

test('stored garbage reads as an empty day; member counts always add up to at most the total', async () => {
  await fc.assert(
    fc.asyncProperty(fc.anything(), async (stored) => {
      const keyv = new Keyv();
      await keyv.set('usage:g:2026-05-10', stored);
      const [day] = await new KeyvUsageLedger(keyv).days('g', NOON, NOON);
      const sum = Object.values(day?.members ?? {}).reduce((a, b) => a + b, 0);
      expect(day?.day).toBe('2026-05-10');
      expect(Number.isInteger(day?.total)).toBe(true);
      expect(sum).toBeLessThanOrEqual(day?.total ?? -1);
    }),
    { numRuns: 200 },
  );
});
