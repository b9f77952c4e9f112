/**
 * What `/usage` shows one member, gathered: the key's use from its budget, today's and past
 * days' counts and bills from the usage ledger, the member's daily share and the server's
 * money budget; and the chart's picture. The command only renders it.
 */
import type { Translator } from '../i18n/index.ts';
import { nextUtcDay, type SettingsStore, type UsageLedger } from '../store/index.ts';
import type { Clock, TtsClient } from '../tts/index.ts';
import { chartSvg } from './chart.ts';
import { rasterize } from './png.ts';
import {
  chartAltText,
  chartInput,
  moneyFigures,
  serverUsage,
  topMembers,
  type UsageFigures,
} from './report.ts';

const HISTORY_DAYS = 14;
/** Money is shown over the last 30 days (the ledger keeps 31). */
const MONEY_DAYS = 30;
const DAY_MS = 86_400_000;

/** Where the figures come from (the services handlers are handed fit it). */
export interface UsageSources {
  readonly clock: Clock;
  readonly usage: Pick<UsageLedger, 'days'>;
  readonly speaking: { memberShareOf(guildId: string): Promise<number | undefined> };
  readonly settings: Pick<SettingsStore, 'guild'>;
}

/** Who asks: the member, whether they manage the server (who see the history), and the server's client. */
export interface UsageAsker {
  readonly guildId: string;
  readonly memberId: string;
  readonly manager: boolean;
  readonly client: Pick<TtsClient, 'usage' | 'billsMoney'>;
}

/** The figures `/usage` shows `asker`: their own today, and the server's last days to a manager. */
export async function gatherUsage(
  services: UsageSources,
  { guildId, memberId, manager, client }: UsageAsker,
): Promise<UsageFigures> {
  const now = services.clock.now();
  const billsMoney = client.billsMoney;
  const back = billsMoney ? MONEY_DAYS : manager ? HISTORY_DAYS : 1;
  const [usages, read, share, guild] = await Promise.all([
    client.usage('generate'),
    services.usage.days(guildId, now - (back - 1) * DAY_MS, now),
    services.speaking.memberShareOf(guildId),
    services.settings.guild(guildId),
  ]);
  const days = read.slice(manager ? -HISTORY_DAYS : -1);
  return {
    server: serverUsage(usages, days.at(-1)?.total ?? 0),
    member: {
      used: days.at(-1)?.members[memberId] ?? 0,
      // Members with Manage Server are exempt from the share: theirs is shown as information.
      share: manager ? undefined : share,
      freesAt: nextUtcDay(now),
    },
    // v3 bills each generation: today, 30 days, yours, and what merging saved; v2 says it bills none.
    money: billsMoney ? moneyFigures(read, memberId, guild.limits.dailyBudgetMicros) : 'none',
    ...(manager ? { history: { days, top: topMembers(days) }, shareForMembers: share } : {}),
  };
}

/** The usage chart as a PNG, and its description for screen readers in the member's language. */
export function usageChart(
  translator: Translator,
  figures: UsageFigures,
): { readonly png: Buffer; readonly description: string } {
  const chart = rasterize(chartSvg(chartInput(figures)));
  return { png: chart.png, description: chartAltText(translator, figures) };
}
