import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { checkShare, dailyLimitOf, memberDailyShare } from '../../src/speaking/index.ts';

const MIN = 60_000;
const DAY = 86_400_000;
const NOON = Date.UTC(2026, 4, 10, 12);
const MIDNIGHT = Date.UTC(2026, 4, 11);

describe('dailyLimitOf', () => {
  test.each([
    [
      [
        { count: 20, windowMs: MIN },
        { count: 500, windowMs: DAY },
      ],
      500,
    ],
    [[{ count: 20, windowMs: MIN }], undefined],
    [
      [
        { count: 900, windowMs: 2 * DAY },
        { count: 500, windowMs: DAY },
      ],
      500,
    ],
    [[], undefined],
  ])('%j → %s', (limits, expected) => {
    expect(dailyLimitOf(limits)).toBe(expected);
  });
});

describe('memberDailyShare', () => {
  test.each([
    [undefined, 500, 100], // default: a fifth of the daily limit
    [undefined, 3, 1], // never below one
    [undefined, undefined, undefined], // no daily limit, nothing set: no share
    [25, 500, 25], // set by the server
    [25, undefined, 25],
    [0, 500, undefined], // 0 turns it off
  ])('setting %s, daily limit %s → %s', (setting, daily, expected) => {
    expect(memberDailyShare(setting, daily)).toBe(expected);
  });
});

describe('checkShare', () => {
  test.each([
    [{ used: 0, reserved: 0, share: 3, exempt: false }, true],
    [{ used: 2, reserved: 0, share: 3, exempt: false }, true],
    [{ used: 2, reserved: 1, share: 3, exempt: false }, false], // under way counts
    [{ used: 3, reserved: 0, share: 3, exempt: false }, false],
    [{ used: 9, reserved: 4, share: 3, exempt: true }, true], // Manage Server
    [{ used: 9, reserved: 4, share: undefined, exempt: false }, true], // no share
  ])('%j → allowed %s', (input, allowed) => {
    const check = checkShare({ ...input, now: NOON });
    expect(check.ok).toBe(allowed);
    if (!check.ok) expect(check).toEqual({ ok: false, share: 3, freesAt: MIDNIGHT });
  });

  test('requests one at a time never go past the share, and a refusal frees up at the next UTC midnight', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 50 }),
        fc.array(fc.constantFrom('ask', 'submit', 'drop'), { maxLength: 200 }),
        fc.integer({ min: 0, max: 10 * DAY }),
        (share, steps, offset) => {
          const now = NOON + offset;
          let used = 0;
          let reserved = 0;
          for (const step of steps) {
            if (step === 'ask') {
              const check = checkShare({ used, reserved, share, exempt: false, now });
              if (check.ok) reserved += 1;
              else {
                expect(check.freesAt % DAY).toBe(0);
                expect(check.freesAt - now).toBeGreaterThan(0);
                expect(check.freesAt - now).toBeLessThanOrEqual(DAY);
              }
            } else if (reserved > 0) {
              reserved -= 1;
              if (step === 'submit') used += 1;
            }
            expect(used + reserved).toBeLessThanOrEqual(share);
          }
        },
      ),
    );
  });
});
