import Keyv from 'keyv';
import { describe, expect, test } from 'vitest';
import { dayKey, KeyvUsageLedger, lastDays, nextDayStart } from '../../src/usage/index.ts';

const NOON = Date.parse('2026-05-14T12:00:00Z');
const DAY = 86_400_000;

describe('days', () => {
  test.each([
    [Date.parse('2026-05-14T00:00:00Z'), '2026-05-14'],
    [Date.parse('2026-05-14T23:59:59.999Z'), '2026-05-14'],
    [Date.parse('2026-05-15T00:00:00Z'), '2026-05-15'],
  ])('dayKey(%i) = %s', (at, day) => {
    expect(dayKey(at)).toBe(day);
  });

  test('lastDays runs oldest first up to today, across a month end', () => {
    expect(lastDays(Date.parse('2026-06-02T08:00:00Z'), 4)).toEqual([
      '2026-05-30',
      '2026-05-31',
      '2026-06-01',
      '2026-06-02',
    ]);
  });

  test('a member’s day starts again at the next UTC midnight', () => {
    expect(nextDayStart(NOON)).toBe(Date.parse('2026-05-15T00:00:00Z'));
  });
});

describe('KeyvUsageLedger', () => {
  test('counts per server, per member and per day; other servers are apart', async () => {
    const ledger = new KeyvUsageLedger(new Keyv());
    await ledger.record('g1', 'alice', NOON - DAY);
    await ledger.record('g1', 'alice', NOON);
    await ledger.record('g1', 'bob', NOON);
    await ledger.record('g1', 'alice', NOON + 1000);
    await ledger.record('g2', 'carol', NOON);
    expect(await ledger.history('g1', 3, NOON)).toEqual([
      { day: '2026-05-12', total: 0, members: {} },
      { day: '2026-05-13', total: 1, members: { alice: 1 } },
      { day: '2026-05-14', total: 3, members: { alice: 2, bob: 1 } },
    ]);
    expect((await ledger.history('g2', 1, NOON))[0]).toEqual({
      day: '2026-05-14',
      total: 1,
      members: { carol: 1 },
    });
  });

  test('concurrent records of one server are all counted', async () => {
    const ledger = new KeyvUsageLedger(new Keyv());
    await Promise.all(Array.from({ length: 50 }, (_, i) => ledger.record('g', `u${i % 5}`, NOON)));
    const [today] = await ledger.history('g', 1, NOON);
    expect(today?.total).toBe(50);
    expect(Object.values(today?.members ?? {})).toEqual([10, 10, 10, 10, 10]);
  });

  test('survives a restart (the counts are in the store) and ignores a damaged record', async () => {
    const keyv = new Keyv();
    await new KeyvUsageLedger(keyv).record('g', 'alice', NOON);
    expect((await new KeyvUsageLedger(keyv).history('g', 1, NOON))[0]?.total).toBe(1);
    await keyv.set('usage:g:2026-05-14', { total: -3, members: 'x' });
    expect((await new KeyvUsageLedger(keyv).history('g', 1, NOON))[0]?.total).toBe(0);
  });
});
