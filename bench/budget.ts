/**
 * Issue 31: the busy chat on v3 (streaming), read without a budget and then with a daily budget
 * of half what it spent (`/config limits daily-budget`): the spend stays under the budget, the
 * reader stops, nothing is refused by the API (0 × 429), and `/usage` shows what merging saved.
 * Money is what the emulator billed the key (its `dollar_cost`, default price per token).
 */
import { type BusyChatPlan, runBusyChat } from './busy-chat.ts';
import { benchUser } from './emulator-log.ts';
import { formatNumber, meets, oursRow, type Row } from './stats.ts';

const usd = (micros: number | undefined): string =>
  micros === undefined ? 'n/a' : `$${(micros / 1_000_000).toFixed(6)}`;

/** The "Merging saved" line of `/usage`, or a dash when it has none. */
function savedLine(usage: string | undefined): string {
  return /\*\*Merging saved:\*\* (\S+)/.exec(usage ?? '')?.[1] ?? '—';
}

/** Runs the budget benchmark and returns its rows. */
export async function budgetBench(plan: BusyChatPlan, concurrentJobs = 5): Promise<Row[]> {
  const setup = { source: 'discord', version: 'v3', concurrentJobs } as const;
  const free = await runBusyChat(plan, setup, benchUser('budget_free_bot'));
  const spentFree = free.billedMicros ?? 0;
  // Half of what the same chat spends: the budget must stop it part-way.
  const budgetMicros = Math.max(1, Math.floor(spentFree / 2));
  const capped = await runBusyChat(
    plan,
    { ...setup, dailyBudgetUsd: budgetMicros / 1_000_000 },
    benchUser('budget_capped_bot'),
  );
  const section = 'v3 budget';
  const share = (n: number) => `${formatNumber((100 * n) / plan.messages, 0)} %`;
  return [
    oursRow(
      section,
      `busy chat on v3 (${plan.messages} messages), no budget: billed; generations; messages read; merging saved (/usage)`,
      `${usd(spentFree)}; ${free.generations}; ${free.read} (${share(free.read)}); ${savedLine(free.usage)}`,
    ),
    oursRow(
      section,
      `the same chat with a daily budget of ${usd(budgetMicros)} (half): billed`,
      usd(capped.billedMicros),
      {
        text: `≤ ${usd(budgetMicros)}`,
        met: meets(capped.billedMicros ?? Number.POSITIVE_INFINITY, { max: budgetMicros }),
      },
    ),
    oursRow(
      section,
      'with the budget: generations; messages read (the reader stops at the budget)',
      `${capped.generations}; ${capped.read} (${share(capped.read)})`,
    ),
    oursRow(section, 'responses 429 (both runs)', String(free.refusals + capped.refusals), {
      text: '0',
      met: meets(free.refusals + capped.refusals, { max: 0 }),
    }),
  ];
}
