import { describe, expect, test } from 'vitest';
import { describeLimits } from '../../src/discord/index.ts';
import { translatorFor } from '../../src/i18n/index.ts';

const en = translatorFor('en-US');

describe('describeLimits', () => {
  test.each<[string, number | undefined, number | undefined, number | undefined, string, string]>([
    [
      'the default share: a fifth of the daily limit',
      undefined,
      undefined,
      500,
      '100 generations per member per day (the default: a fifth of the key’s 500 a day)',
      'the same as the per-member share',
    ],
    [
      'no daily limit (v3) and no share set: none, and no daily limit to use whole',
      undefined,
      undefined,
      undefined,
      'no daily share: the key has no daily limit',
      'the same as the per-member share',
    ],
    [
      'shares set to none under a daily limit',
      0,
      0,
      500,
      'no daily share: members may use the whole daily limit',
      'no daily share: members may use the whole daily limit',
    ],
    [
      'shares set to none without a daily limit',
      0,
      0,
      undefined,
      'no daily share: the key has no daily limit',
      'no daily share: the key has no daily limit',
    ],
    [
      'a share set without a daily limit applies as set',
      2,
      5,
      undefined,
      '2 generations per member per day',
      '5 generations per member per day',
    ],
  ])('%s', (_, setting, chatSetting, dailyLimit, share, chat) => {
    const lines = describeLimits(en, { setting, chatSetting, dailyLimit, perMemberQueue: 3 }).split(
      '\n',
    );
    expect(lines[0]).toBe(
      `**Per-member share:** ${share}. Members with Manage Server are exempt; counts restart at 00:00 UTC.`,
    );
    expect(lines[1]).toMatch(new RegExp(`^\\*\\*Chat share:\\*\\* ${chat}, read aloud`));
  });
});

describe('describeLimits: the daily budget (issue 31)', () => {
  const input = { setting: undefined, dailyLimit: undefined, perMemberQueue: 3 };

  test('none by default, saying how to set one', () => {
    expect(describeLimits(en, input).split('\n')[2]).toBe(
      '**Daily budget:** none (v3 bills each generation; set one with `daily-budget:<dollars>`).',
    );
    expect(describeLimits(en, { ...input, budgetMicros: 0 }).split('\n')[2]).toContain('none');
  });

  test('a budget, in US dollars in the reader’s language', () => {
    expect(describeLimits(en, { ...input, budgetMicros: 2_500_000 }).split('\n')[2]).toBe(
      '**Daily budget:** $2.50 a day for the whole server (v3 bills each generation); past it, `/say` and the chat reader stop until 00:00 UTC.',
    );
    const de = describeLimits(translatorFor('de'), { ...input, budgetMicros: 2_500_000 });
    expect(de.replace(/\s/g, ' ')).toContain('**Tagesbudget:** 2,50 $ pro Tag');
  });
});
