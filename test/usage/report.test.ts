import { describe, expect, test } from 'vitest';
import { translatorFor } from '../../src/i18n/index.ts';
import { CHAT_LEDGER_ID } from '../../src/store/index.ts';
import {
  chartAltText,
  chartInput,
  dailyUsage,
  lowQuotaLine,
  quotaLow,
  serverUsage,
  topMembers,
  type UsageFigures,
  usageLines,
} from '../../src/usage/index.ts';

const en = translatorFor('en-US');
const MINUTE = { count: 20, windowMs: 60_000 };
const DAILY = { count: 500, windowMs: 86_400_000 };
const days = [
  { day: '2026-05-13', total: 3, members: { a: 2, b: 1 } },
  { day: '2026-05-14', total: 5, members: { b: 3, c: 1, a: 1 } },
];

describe('dailyUsage', () => {
  test('takes the limit of a day or more, not the per-minute one', () => {
    expect(
      dailyUsage([
        { limit: MINUTE, used: 2, resetAt: 10 },
        { limit: DAILY, used: 42, resetAt: 99 },
      ]),
    ).toEqual({ used: 42, limit: 500, freesAt: 99 });
    expect(dailyUsage([{ limit: MINUTE, used: 2, resetAt: 10 }])).toEqual({
      used: 0,
      limit: undefined,
      freesAt: null,
    });
  });
});

describe('serverUsage', () => {
  test('the key’s daily window when it has a daily limit, whatever the ledger says', () => {
    const usages = [
      { limit: MINUTE, used: 2, resetAt: 10 },
      { limit: DAILY, used: 42, resetAt: 99 },
    ];
    expect(serverUsage(usages, 7)).toEqual({ used: 42, limit: 500, freesAt: 99 });
  });

  test.each([
    ['v3’s request allowance only', [{ limit: MINUTE, used: 9, resetAt: 10 }]],
    ['no limit at all', []],
  ])('without a daily limit (%s): today’s count from the ledger', (_, usages) => {
    expect(serverUsage(usages, 7)).toEqual({ used: 7, limit: undefined, freesAt: null });
  });
});

describe('quota left', () => {
  test.each([
    [0, 500, false],
    [450, 500, false],
    [451, 500, true],
    [500, 500, true],
    [8, 10, false],
    [9, 10, false],
    [10, 10, true],
    [5, undefined, false],
  ])('%i used of %s → low: %s', (used, limit, low) => {
    expect(quotaLow({ used, limit })).toBe(low);
    const line = lowQuotaLine(en, { used, limit, freesAt: null });
    if (low) expect(line).toContain(`Only ${(limit ?? 0) - used} of ${limit} generations`);
    else expect(line).toBeUndefined();
  });

  test('the line follows the member’s language', () => {
    expect(lowQuotaLine(translatorFor('de'), { used: 499, limit: 500, freesAt: null })).toBe(
      '⚠️ Nur noch 1 von 500 Generierungen sind für diesen Server im 24-Stunden-Fenster übrig.',
    );
  });
});

describe('topMembers', () => {
  test('sums over the days, most first, ties by id, at most n', () => {
    expect(topMembers(days)).toEqual([
      { userId: 'b', count: 4 },
      { userId: 'a', count: 3 },
      { userId: 'c', count: 1 },
    ]);
    expect(topMembers(days, 1)).toEqual([{ userId: 'b', count: 4 }]);
    expect(topMembers([])).toEqual([]);
  });
});

describe('usageLines', () => {
  const member: UsageFigures['member'] = { used: 2, share: undefined, freesAt: 1_800_000_000_000 };
  const server = { used: 42, limit: 500, freesAt: 1_800_000_000_000 };

  test.each<[string, UsageFigures, string[]]>([
    [
      'a member',
      { server, member },
      [
        '**This server, last 24 hours:** 42 of 500 generations (458 left)',
        'The oldest of these leaves the 24-hour window <t:1800000000:R>.',
        '**You today:** 2 generations',
      ],
    ],
    [
      'a member with a share, used up',
      { server, member: { ...member, used: 10, share: 10 } },
      [
        '**This server, last 24 hours:** 42 of 500 generations (458 left)',
        'The oldest of these leaves the 24-hour window <t:1800000000:R>.',
        '**You today:** 10 of your daily share of 10',
        'Your daily share is used up; it starts again <t:1800000000:R>.',
      ],
    ],
    [
      'the server’s quota used up',
      { server: { ...server, used: 500 }, member: { ...member, used: 1 } },
      [
        '**This server, last 24 hours:** 500 of 500 generations (0 left)',
        'The daily quota is used up; it frees up <t:1800000000:R>.',
        '**You today:** 1 generation',
      ],
    ],
    [
      'a key without a daily limit (v3): today’s count, no window and no quota',
      { server: { used: 3, limit: undefined, freesAt: null }, member },
      ['**This server today (UTC):** 3 generations', '**You today:** 2 generations'],
    ],
    [
      'a key without a daily limit, one generation today',
      { server: { used: 1, limit: undefined, freesAt: null }, member: { ...member, used: 1 } },
      ['**This server today (UTC):** 1 generation', '**You today:** 1 generation'],
    ],
    [
      'nothing used yet',
      { server: { used: 0, limit: 500, freesAt: null }, member: { ...member, used: 0 } },
      [
        '**This server, last 24 hours:** 0 of 500 generations (500 left)',
        '**You today:** 0 generations',
      ],
    ],
  ])('%s', (_, figures, summary) => {
    const lines = usageLines(en, figures);
    expect(lines.summary).toEqual(summary);
    expect(lines.days).toBeUndefined();
    expect(lines.top).toBeUndefined();
  });

  test('managers also get the days and the top members', () => {
    const lines = usageLines(en, {
      server,
      member,
      history: { days, top: topMembers(days) },
    });
    expect(lines.days).toEqual(['`05-13` 3', '`05-14` 5']);
    expect(lines.top).toEqual(['1. <@b> — 4', '2. <@a> — 3', '3. <@c> — 1']);
  });

  test('chat turns that merged several authors are listed as the chat, Twitch chatters by id, never as a mention', () => {
    const lines = usageLines(en, {
      server,
      member,
      history: {
        days,
        top: [
          { userId: CHAT_LEDGER_ID, count: 7 },
          { userId: 'b', count: 4 },
          { userId: 'twitch:4242', count: 2 },
        ],
      },
    });
    expect(lines.top).toEqual([
      '1. the chat (turns that merged several members’ messages) — 7',
      '2. <@b> — 4',
      '3. Twitch chatter 4242 — 2',
    ]);
  });

  test('managers, exempt from the share, are told the share members have', () => {
    expect(usageLines(en, { server, member, shareForMembers: 100 }).summary.at(-1)).toBe(
      '**Per-member share:** 100 generations per member per day (members with Manage Server are exempt).',
    );
  });

  test('Japanese', () => {
    expect(usageLines(translatorFor('ja'), { server, member }).summary[0]).toBe(
      '**このサーバー（過去 24 時間）:** 500 回中 42 回生成（残り 458 回）',
    );
  });
});

describe('chart input and alt text', () => {
  const figures: UsageFigures = {
    server: { used: 5, limit: 500, freesAt: null },
    member: { used: 0, share: undefined, freesAt: 0 },
    history: { days, top: [] },
  };

  test('the chart gets the days and the limit', () => {
    expect(chartInput(figures)).toEqual({
      days: [
        { label: '05-13', count: 3 },
        { label: '05-14', count: 5 },
      ],
      limit: 500,
    });
  });

  test('the alt text says what the chart shows, with every figure', () => {
    expect(chartAltText(en, figures)).toBe(
      'Bar chart of this server’s TTS generations over the last 2 days, today last; the dashed line is the daily limit of 500. 05-13: 3, 05-14: 5',
    );
    expect(chartAltText(translatorFor('fr'), figures)).toContain('limite quotidienne de 500');
  });
});
