/** The daily budget (issue 31): its check, the money held for requests, and what merging saved. */
import fc from 'fast-check';
import Keyv from 'keyv';
import { describe, expect, test } from 'vitest';
import { translatorFor } from '../../src/i18n/index.ts';
import { errorText } from '../../src/refusal/index.ts';
import {
  budgetSpent,
  checkBudget,
  MoneyReservations,
  mergeSavingMicros,
} from '../../src/speaking/budget.ts';
import { budgetRefusal } from '../../src/speaking/refusals.ts';
import { Spending } from '../../src/speaking/spending.ts';
import { KeyvUsageLedger } from '../../src/store/index.ts';
import type { Clock } from '../../src/tts/index.ts';

const NOON = Date.UTC(2026, 4, 10, 12);
const MIDNIGHT = Date.UTC(2026, 4, 11);

describe('checkBudget', () => {
  test.each([
    // spent, reserved, predicted, budget, ok
    [0, 0, 100, undefined, true],
    [5000, 0, 100, 0, true], // 0: no budget
    [0, 0, 100, 300, true],
    [200, 0, 100, 300, true], // exactly the budget
    [200, 50, 100, 300, false], // held money counts
    [250, 0, 100, 300, false],
    [299, 0, undefined, 300, true], // unpriced: allowed below the budget
    [300, 0, undefined, 300, false], // …never at it
    [300, 0, 0, 300, false],
  ])(
    'spent %d, held %d, predicted %s, budget %s → ok %s',
    (spent, reserved, predicted, budget, ok) => {
      const check = checkBudget({ spent, reserved, predicted, budget, now: NOON });
      expect(check.ok).toBe(ok);
      if (!check.ok)
        expect(check).toMatchObject({ ok: false, budgetMicros: budget, freesAt: MIDNIGHT });
    },
  );

  test('property: requests held at their exact cost never take the spend past the budget', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000 }),
        fc.array(fc.integer({ min: 8, max: 2000 }), { maxLength: 60 }),
        fc.array(fc.boolean(), { maxLength: 60 }),
        (budget, costs, settleFirst) => {
          const held = new MoneyReservations();
          let spent = 0;
          const open: { id: string; micros: number }[] = [];
          costs.forEach((micros, i) => {
            // Some requests are billed (recorded, then let go) before the next one is checked.
            if (settleFirst[i] === true) {
              const done = open.shift();
              if (done !== undefined) {
                spent += done.micros;
                held.release(done.id);
              }
            }
            const check = checkBudget({
              spent,
              reserved: held.held('g'),
              predicted: micros,
              budget,
              now: NOON,
            });
            if (!check.ok) return;
            held.hold('g', String(i), micros);
            open.push({ id: String(i), micros });
          });
          for (const rest of open) spent += rest.micros;
          expect(spent).toBeLessThanOrEqual(budget);
        },
      ),
    );
  });

  test('budgetSpent: only with a budget, once reached', () => {
    expect(budgetSpent(300, 300)).toBe(true);
    expect(budgetSpent(299, 300)).toBe(false);
    expect(budgetSpent(10_000, undefined)).toBe(false);
    expect(budgetSpent(10_000, 0)).toBe(false);
  });
});

describe('MoneyReservations', () => {
  test('per server, released once by id; a second hold of an id replaces the first', () => {
    const held = new MoneyReservations();
    held.hold('g', 'a', 100);
    held.hold('g', 'b', 50);
    held.hold('h', 'c', 7);
    expect(held.held('g')).toBe(150);
    held.hold('g', 'a', 30);
    expect(held.held('g')).toBe(80);
    held.release('a');
    held.release('a');
    expect(held.held('g')).toBe(50);
    held.release('b');
    expect(held.held('g')).toBe(0);
    expect(held.held('h')).toBe(7);
  });
});

describe('mergeSavingMicros', () => {
  test.each([
    // lines alone, the turn's tokens and micros, saved
    [['hi'], 8, 80, 0], // one line: nothing merged
    [['bobby said hi.', 'carol said yo.'], 8, 80, 80], // 8 + 8 tokens alone, 8 merged
    [['a'.repeat(100), 'b'.repeat(100)], 50, 500, 0], // long lines: billed by length either way
    [['x', 'y', 'z'], 8, 8, 16], // 1 micro-dollar a token
    [['x', 'y'], 8, 7, 7], // rounded down: never more saved than was
  ])('%j as one turn of %d tokens (%d µ$) saved %d µ$', (alone, tokens, micros, saved) => {
    expect(mergeSavingMicros(alone, { tokens, micros })).toBe(saved);
  });
});

describe('budgetRefusal', () => {
  test('says the budget in US dollars in the reader’s language, and when it starts again', () => {
    const refusal = budgetRefusal({ ok: false, budgetMicros: 2_500_000, freesAt: MIDNIGHT });
    expect(refusal.id).toBe('daily_budget');
    const when = `<t:${MIDNIGHT / 1000}:R>`;
    const en = errorText(translatorFor('en-US').t, refusal.id, refusal.context as never);
    expect(en).toBe(
      `This server has spent its daily TTS budget ($2.50). Speech starts again ${when}; an admin can change the budget with \`/config limits daily-budget\`.`,
    );
    const de = errorText(translatorFor('de').t, refusal.id, refusal.context as never);
    expect(de).toContain('2,50');
  });

  test('a small budget reads to the micro-dollar, as /usage shows it, not as $0.00', () => {
    const refusal = budgetRefusal({ ok: false, budgetMicros: 985, freesAt: MIDNIGHT });
    const en = errorText(translatorFor('en-US').t, refusal.id, refusal.context as never);
    expect(en).toContain('daily TTS budget ($0.000985)');
    const left = budgetRefusal({ ok: false, budgetMicros: 985, freesAt: MIDNIGHT, leftMicros: 5 });
    const fr = errorText(translatorFor('fr').t, left.id, left.context as never);
    expect(fr.replace(/\s/g, ' ')).toContain('il reste 0,000005 $US');
  });

  test.each([
    // spent, held, predicted, budget: what is left, or undefined when the budget is spent
    [0, 0, 3_000_000, 2_500_000, 2_500_000], // one text costs more than the whole budget
    [2_000_000, 0, 1_000_000, 2_500_000, 500_000],
    [1_000_000, 1_600_000, 100_000, 2_500_000, 0], // held money took the rest: nothing shorter fits
    [1_000_000, 1_000_000, 600_000, 2_500_000, 500_000], // held money took some
    [2_500_000, 0, 100_000, 2_500_000, undefined], // spent: "has spent its daily budget"
    [3_000_000, 0, 100_000, 2_500_000, undefined], // lowered below today's spend
  ])(
    'spent %d, held %d, a request of %d, budget %d: %s left',
    (spent, reserved, predicted, budget, left) => {
      const check = checkBudget({ spent, reserved, predicted, budget, now: NOON });
      if (check.ok) throw new Error('accepted');
      expect(check.leftMicros).toBe(left);
      const refusal = budgetRefusal(check);
      const en = errorText(translatorFor('en-US').t, refusal.id, refusal.context as never);
      if (left === undefined) expect(en).toContain('This server has spent its daily TTS budget');
      else if (left === 0)
        expect(en).toBe(
          `This server’s daily TTS budget ($2.50) is taken up by requests still under way. Try again once they are read (any that fail give their share back); the whole budget is back <t:${MIDNIGHT / 1000}:R>.`,
        );
      else
        expect(en).toContain(
          `This request would take this server past its daily TTS budget ($2.50): $${(left / 1e6).toFixed(2)} is left today`,
        );
    },
  );
});

describe('Spending: the budget with the ledger', () => {
  function spending() {
    let now = NOON;
    const usage = new KeyvUsageLedger(new Keyv());
    const warnings: unknown[] = [];
    const spend = new Spending({
      usage,
      clock: { now: () => now, sleep: async () => true } as unknown as Clock,
      logger: { warn: (...args: unknown[]) => void warnings.push(args) } as never,
    });
    const later = (ms: number): void => {
      now += ms;
    };
    return { spend, usage, warnings, later };
  }
  const text = (tokens: number) => ({ tokens, micros: tokens * 10 });

  test('held money counts until the bill is recorded; past the budget refused until midnight', async () => {
    const { spend, usage, later } = spending();
    await spend.reserveMoney('g', 't1', 300, text(10)); // 100 held
    await spend.reserveMoney('g', 't2', 300, text(10)); // 200 held
    await expect(spend.reserveMoney('g', 't3', 300, text(11))).rejects.toMatchObject({
      id: 'daily_budget_left', // 200 held of 300: 100 left, for 110
    });
    await spend.record('g', 'a', 'gen1', 't1', { tokens: 10, micros: 100 });
    await spend.record('g', 'a', 'gen2', 't2', { tokens: 10, micros: 100 });
    expect(usage.spentToday('g', NOON)).toEqual({ micros: 200, tokens: 20 });
    await spend.reserveMoney('g', 't3', 300, text(10)); // exactly the budget
    // Held to the last micro-dollar: no "$0.00 is left, a shorter text may fit".
    await expect(spend.checkBudget('g', 300)).rejects.toMatchObject({ id: 'daily_budget_held' });
    spend.release('t3'); // ended without a generation
    await spend.checkBudget('g', 300);
    expect(await spend.budgetSpent('g', 300)).toBeUndefined();
    await spend.record('g', 'a', 'gen3', 'x', { tokens: 10, micros: 100 });
    expect(await spend.budgetSpent('g', 300)).toEqual({ spent: 300, budget: 300 });
    // Other servers and no budget are untouched.
    await spend.checkBudget('h', 300);
    await spend.checkBudget('g', undefined);
    later(12 * 3_600_000); // the next UTC day
    await spend.checkBudget('g', 300);
  });

  test('before the key’s price is known, today’s ledger prices the text (after a restart)', async () => {
    const { spend } = spending();
    await spend.record('g', 'a', 'gen1', 't0', { tokens: 20, micros: 200 }); // 10 µ$ a token
    // 10 tokens at today's price: 100 µ$, which does not fit in 250 − 200.
    await expect(
      spend.reserveMoney('g', 't1', 250, { tokens: 10, micros: undefined }),
    ).rejects.toMatchObject({ id: 'daily_budget_left', context: { left: 0.00005 } });
    await spend.reserveMoney('g', 't1', 300, { tokens: 10, micros: undefined });
    // 200 spent and 100 held: nothing is left.
    await expect(spend.checkBudget('g', 300)).rejects.toMatchObject({ id: 'daily_budget_held' });
  });
});

describe('Spending: reviewed paths (bills missing, prices unknown)', () => {
  function spending(usage = new KeyvUsageLedger(new Keyv())) {
    let now = NOON;
    const spend = new Spending({
      usage,
      clock: { now: () => now, sleep: async () => true } as unknown as Clock,
      logger: { warn: () => undefined } as never,
    });
    const at = (ms: number): void => {
      now = ms;
    };
    return { spend, usage, at };
  }

  test('a generation answered without a bill is recorded at what was held for it', async () => {
    const { spend, usage } = spending();
    await spend.reserveMoney('g', 't1', 1000, { tokens: 10, micros: 100 });
    await spend.record('g', 'a', 'gen1', 't1'); // the API's answer carried no dollar_cost
    expect(usage.spentToday('g', NOON)).toEqual({ micros: 100, tokens: 10 });
    // Joining another's generation (nothing held, nothing billed) still records no money.
    await spend.record('g', 'b', 'gen1', 't2');
    expect(usage.spentToday('g', NOON)).toEqual({ micros: 100, tokens: 10 });
    // Nor does joining another server's (two servers on one key): the key paid once, there.
    await spend.reserveMoney('h', 't3', 1000, { tokens: 10, micros: 100 });
    await spend.record('h', 'c', 'gen1', 't3');
    expect(usage.spentToday('h', NOON)).toEqual({ micros: 0, tokens: 0 });
  });

  test('a stream made again under the same ticket (mid-play recovery) is billed once; nothing stays held', async () => {
    const { spend, usage } = spending();
    await spend.reserveMoney('g', 't1', 1000, { tokens: 10, micros: 100 });
    await spend.record('g', 'a', 'gen1', 't1', { tokens: 10, micros: 100 }); // the stream started
    // It failed mid-way; the API gave the first back and the recovery submitted it again.
    await spend.record('g', 'a', 'gen2', 't1', { tokens: 10, micros: 100 });
    await spend.record('g', 'a', 'gen2', 't1'); // and its identical joiner, billless
    spend.release('t1'); // the item ended
    expect(usage.spentToday('g', NOON)).toEqual({ micros: 100, tokens: 10 });
    await spend.reserveMoney('g', 't2', 1000, { tokens: 90, micros: 900 }); // nothing else held
  });

  test('after a restart, before today’s first bill, the last day billed prices requests', async () => {
    const store = new Keyv();
    const before = spending(new KeyvUsageLedger(store));
    await before.spend.record('g', 'a', 'gen1', 't0', { tokens: 20, micros: 200 }); // 10 µ$ a token
    // A new process the next day: no price seen for the key, nothing billed today yet.
    const after = spending(new KeyvUsageLedger(store));
    after.at(NOON + 86_400_000);
    // Each request of 10 tokens is 100 µ$ at yesterday's price: three fit in 300, not four.
    const unpriced = { tokens: 10, micros: undefined };
    const outcomes = await Promise.allSettled(
      ['t1', 't2', 't3', 't4'].map((id) => after.spend.reserveMoney('g', id, 300, unpriced)),
    );
    expect(outcomes.map((o) => o.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'rejected',
    ]);
  });
});
