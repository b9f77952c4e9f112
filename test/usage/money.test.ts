/** Money in `/usage` and the ledger (issue 31): integer micro-dollars, shown in the member's language. */
import Keyv from 'keyv';
import { describe, expect, test } from 'vitest';
import { translatorFor } from '../../src/i18n/index.ts';
import { addGeneration, CHAT_LEDGER_ID, emptyDay, KeyvUsageLedger } from '../../src/store/index.ts';
import {
  chartInput,
  chartSvg,
  dollarsToMicros,
  formatMoney,
  moneyFigures,
  topMembers,
  type UsageFigures,
  usageLines,
} from '../../src/usage/index.ts';

const NOON = Date.UTC(2026, 4, 10, 12);
const DAY = 86_400_000;

describe('formatMoney', () => {
  test.each([
    ['en', 2_500_000, '$2.50'],
    ['en', 8, '$0.000008'],
    ['en', 0, '$0.00'],
    ['de', 2_500_000, '2,50 $'],
    ['fr', 1_234_567, '1,234567 $US'],
    ['ja', 300, '$0.0003'],
  ] as const)('%s: %d µ$ reads %s', (language, micros, text) => {
    expect(formatMoney(language, micros).replace(/\s/g, ' ')).toBe(text);
  });

  test('dollars as typed become whole micro-dollars', () => {
    expect(dollarsToMicros(2.5)).toBe(2_500_000);
    expect(dollarsToMicros(0.0003)).toBe(300);
    expect(dollarsToMicros(0.1 + 0.2)).toBe(300_000);
  });

  test('a positive budget below half a micro-dollar is still a budget, never 0 (which removes it)', () => {
    expect(dollarsToMicros(0.0000004)).toBe(1);
    expect(dollarsToMicros(Number.MIN_VALUE)).toBe(1);
    expect(dollarsToMicros(0)).toBe(0);
  });
});

describe('the ledger’s money', () => {
  test('bills add up per member and the chat apart, with what merging saved', () => {
    let day = addGeneration(emptyDay('2026-05-10'), 'a', { tokens: 10, micros: 100 });
    day = addGeneration(day, CHAT_LEDGER_ID, { tokens: 8, micros: 80, savedMicros: 80 });
    day = addGeneration(day, 'a', { tokens: 9, micros: 90 });
    expect(day.total).toBe(3);
    expect(day.spend).toEqual({
      micros: 270,
      tokens: 27,
      savedMicros: 80,
      members: { a: 190, [CHAT_LEDGER_ID]: 80 },
    });
    // v2 bills no money: a day without bills has no spend at all.
    expect(addGeneration(emptyDay('2026-05-10'), 'a').spend).toBeUndefined();
  });

  test('stored and read back by a new process; today’s spend is known once loaded', async () => {
    const keyv = new Keyv();
    const ledger = new KeyvUsageLedger(keyv);
    await ledger.record('g', 'a', NOON, { tokens: 10, micros: 100 });
    await ledger.record('g', 'b', NOON, { tokens: 8, micros: 80, savedMicros: 5 });
    expect(ledger.spentToday('g', NOON)).toEqual({ micros: 180, tokens: 18 });
    const later = new KeyvUsageLedger(keyv);
    expect(later.spentToday('g', NOON)).toBeUndefined();
    await later.load('g', NOON);
    expect(later.spentToday('g', NOON)).toEqual({ micros: 180, tokens: 18 });
    const [stored] = await later.days('g', NOON, NOON);
    expect(stored?.spend).toEqual({
      micros: 180,
      tokens: 18,
      savedMicros: 5,
      members: { a: 100, b: 80 },
    });
    // 30 days back are still there (the ledger keeps 31).
    await ledger.record('g', 'a', NOON - 30 * DAY, { tokens: 8, micros: 8 });
    const month = await later.days('g', NOON - 30 * DAY, NOON);
    expect(month).toHaveLength(31);
    expect(month[0]?.spend?.micros).toBe(8);
  });

  test('a stored day with a broken spend reads whole non-negative integers only', async () => {
    const keyv = new Keyv();
    await keyv.set('usage:g:2026-05-10', {
      total: 1,
      members: { a: 1 },
      spend: { micros: -5, tokens: 1.5, savedMicros: 'x', members: { a: 7, b: -1 } },
    });
    const [day] = await new KeyvUsageLedger(keyv).days('g', NOON, NOON);
    expect(day?.spend).toEqual({ micros: 0, tokens: 0, savedMicros: 0, members: { a: 7 } });
  });
});

describe('/usage money lines', () => {
  const days = [
    {
      day: '2026-05-09',
      total: 2,
      members: { a: 2 },
      spend: { micros: 1_000, tokens: 100, savedMicros: 0, members: { a: 1_000 } },
    },
    {
      day: '2026-05-10',
      total: 3,
      members: { a: 1, [CHAT_LEDGER_ID]: 2 },
      spend: {
        micros: 250,
        tokens: 25,
        savedMicros: 70,
        members: { a: 100, [CHAT_LEDGER_ID]: 150 },
      },
    },
  ];
  const base: UsageFigures = {
    server: { used: 3, limit: undefined, freesAt: null },
    member: { used: 1, share: undefined, freesAt: NOON },
  };

  test('today, 30 days, yours, the budget and what merging saved; per member and per day', () => {
    const figures: UsageFigures = {
      ...base,
      money: moneyFigures(days, 'a', 500),
      history: { days, top: topMembers(days) },
    };
    const lines = usageLines(translatorFor('en-US'), figures);
    expect(lines.summary).toContain(
      '**Spent today (UTC):** $0.00025 of the daily budget of $0.0005 · **last 30 days:** $0.00125',
    );
    expect(lines.summary).toContain('**You spent today:** $0.0001');
    expect(lines.summary.join('\n')).toContain('**Merging saved:** $0.00007 over 30 days.');
    expect(lines.days).toEqual(['`05-09` 2 · $0.001', '`05-10` 3 · $0.00025']);
    expect(lines.top?.[0]).toBe('1. <@a> — 3 · $0.0011');
    expect(lines.top?.[1]).toContain('the chat');
    expect(lines.top?.[1]).toContain('— 2 · $0.00015');
    // The chart prints each day's money above its bar.
    expect(chartSvg(chartInput(figures))).toContain('>$0.00025</text>');
  });

  test('without a budget; in German', () => {
    const lines = usageLines(translatorFor('de'), { ...base, money: moneyFigures(days, 'a', 0) });
    expect(lines.summary.join('\n').replace(/\s/g, ' ')).toContain(
      '**Heute ausgegeben (UTC):** 0,00025 $ · **letzte 30 Tage:** 0,00125 $',
    );
  });

  test('v2 bills no money, and /usage says so', () => {
    const lines = usageLines(translatorFor('en-US'), { ...base, money: 'none' });
    expect(lines.summary.at(-1)).toBe(
      'No money figures: this key’s API (v2) bills no money per generation.',
    );
  });
});
