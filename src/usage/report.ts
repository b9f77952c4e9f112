/** The figures `/usage` shows and how they read, in the member's language. Pure. */
import type { Translator } from '../i18n/index.ts';
import { CHAT_LEDGER_ID, type DayUsage } from '../store/index.ts';
import type { LimitUsage } from '../tts/index.ts';
import type { ChartInput } from './chart.ts';
import { formatMoney } from './money.ts';

/** `2026-05-14` → `05-14`, the chart's short label. */
export function shortDay(day: string): string {
  return day.slice(5);
}

/**
 * The server's use of its key: in the API's daily window, from the key's budget, when the key
 * has a daily limit; else (v3 has none) today's count, UTC, from the usage ledger.
 */
export interface ServerUsage {
  readonly used: number;
  /** Generations allowed per window; undefined when the key has no daily limit. */
  readonly limit: number | undefined;
  /** When the oldest counted generation leaves the window (epoch ms), or null when none. */
  readonly freesAt: number | null;
}

/** A member's own use today (UTC day) and their daily share when one is set. */
export interface MemberUsage {
  readonly used: number;
  readonly share: number | undefined;
  /** When their daily count starts again. */
  readonly freesAt: number;
}

/** What the server's key was billed (v3), in integer micro-dollars. */
export interface MoneyFigures {
  readonly today: number;
  readonly last30: number;
  /** What merged chat turns saved over the 30 days. */
  readonly saved30: number;
  readonly memberToday: number;
  /** The server's daily budget; undefined when none is set. */
  readonly budget: number | undefined;
}

/**
 * The money figures of `days` (the last 30, today last) for `memberId`, with the server's
 * `budget` (micro-dollars; 0 or undefined: none). Sums of integers only.
 */
export function moneyFigures(
  days: readonly DayUsage[],
  memberId: string,
  budget: number | undefined,
): MoneyFigures {
  const today = days.at(-1)?.spend;
  let last30 = 0;
  let saved30 = 0;
  for (const day of days.slice(-30)) {
    last30 += day.spend?.micros ?? 0;
    saved30 += day.spend?.savedMicros ?? 0;
  }
  return {
    today: today?.micros ?? 0,
    last30,
    saved30,
    memberToday: today?.members[memberId] ?? 0,
    budget: budget === 0 ? undefined : budget,
  };
}

/** Everything one `/usage` reply shows; `history` only for members with Manage Server. */
export interface UsageFigures {
  readonly server: ServerUsage;
  readonly member: MemberUsage;
  /**
   * Money (v3 bills each generation); `'none'` where the key's API bills no money (v2), which
   * the reply says; absent: no money line at all.
   */
  readonly money?: MoneyFigures | 'none';
  readonly history?: { readonly days: readonly DayUsage[]; readonly top: readonly TopMember[] };
  /** For managers (who are exempt): the share members have, when one is in force. */
  readonly shareForMembers?: number | undefined;
}

/** A member and their generations over the history shown, and what they cost (v3). */
export interface TopMember {
  readonly userId: string;
  readonly count: number;
  /** Micro-dollars over the history; absent when nothing was billed (v2). */
  readonly micros?: number;
}

/** The key's daily limit among its generate limits (the longest window of at least a day). */
export function dailyUsage(usages: readonly LimitUsage[]): ServerUsage {
  const daily = usages
    .filter((usage) => usage.limit.windowMs >= 86_400_000)
    .sort((a, b) => b.limit.windowMs - a.limit.windowMs)[0];
  return daily === undefined
    ? { used: 0, limit: undefined, freesAt: null }
    : { used: daily.used, limit: daily.limit.count, freesAt: daily.resetAt };
}

/**
 * What `/usage` shows of the server: the key's daily window when it has a daily limit, else
 * `today`, the generations the usage ledger counted for the server this UTC day (the key's
 * budget keeps no day without a daily limit: with v3 it would always read 0).
 */
export function serverUsage(usages: readonly LimitUsage[], today: number): ServerUsage {
  const daily = dailyUsage(usages);
  return daily.limit === undefined ? { used: today, limit: undefined, freesAt: null } : daily;
}

/** The members who generated most over `days`, most first (ties by id), at most `count`. */
export function topMembers(days: readonly DayUsage[], count = 5): TopMember[] {
  const totals = new Map<string, number>();
  const money = new Map<string, number>();
  for (const day of days) {
    for (const [userId, n] of Object.entries(day.members))
      totals.set(userId, (totals.get(userId) ?? 0) + n);
    for (const [userId, micros] of Object.entries(day.spend?.members ?? {}))
      money.set(userId, (money.get(userId) ?? 0) + micros);
  }
  return [...totals]
    .map(([userId, n]) => {
      const micros = money.get(userId);
      return micros === undefined ? { userId, count: n } : { userId, count: n, micros };
    })
    .sort((a, b) => b.count - a.count || a.userId.localeCompare(b.userId))
    .slice(0, count);
}

/** True when less than 10% of the daily quota is left (and a limit is known). */
export function quotaLow(server: Pick<ServerUsage, 'used' | 'limit'>): boolean {
  return server.limit !== undefined && server.limit - server.used < server.limit * 0.1;
}

/** The short line `/say` adds when less than 10% of the daily quota is left; undefined otherwise. */
export function lowQuotaLine({ t }: Translator, server: ServerUsage): string | undefined {
  if (server.limit === undefined || !quotaLow(server)) return undefined;
  return t('usage.low', { left: Math.max(0, server.limit - server.used), limit: server.limit });
}

const when = (epochMs: number): string => `<t:${Math.ceil(epochMs / 1000)}:R>`;

/** The embed's text: what everyone sees, then the history for managers. */
export function usageLines(
  { t, language }: Translator,
  figures: UsageFigures,
): { summary: string[]; days?: string[]; top?: string[] } {
  const { server, member } = figures;
  const summary = [
    server.limit === undefined
      ? t('usage.server_today', { count: server.used })
      : t('usage.server', {
          used: server.used,
          limit: server.limit,
          left: Math.max(0, server.limit - server.used),
        }),
  ];
  if (server.freesAt !== null) {
    summary.push(
      server.limit !== undefined && server.used >= server.limit
        ? t('usage.used_up', { when: when(server.freesAt) })
        : t('usage.frees', { when: when(server.freesAt) }),
    );
  }
  summary.push(
    member.share === undefined
      ? t('usage.you', { count: member.used })
      : t('usage.you_share', { count: member.used, share: member.share }),
  );
  if (member.share !== undefined && member.used >= member.share)
    summary.push(t('usage.share_used_up', { when: when(member.freesAt) }));
  if (figures.shareForMembers !== undefined)
    summary.push(t('usage.share_info', { share: figures.shareForMembers }));
  summary.push(...moneyLines({ t, language }, figures.money));
  const money = (micros: number | undefined): string =>
    micros === undefined ? '' : ` · ${formatMoney(language, micros)}`;
  if (figures.history === undefined) return { summary };
  const { days, top } = figures.history;
  return {
    summary,
    days: days.map((day) => `\`${shortDay(day.day)}\` ${day.total}${money(day.spend?.micros)}`),
    top:
      top.length === 0
        ? [t('usage.nobody')]
        : top.map((entry, i) => {
            // Chat turns that merged several authors are the chat's, not a member's.
            const twitch = /^twitch:(\d+)$/.exec(entry.userId)?.[1];
            const who =
              entry.userId === CHAT_LEDGER_ID
                ? t('usage.top_chat')
                : twitch !== undefined
                  ? t('usage.top_twitch', { id: twitch })
                  : `<@${entry.userId}>`;
            return `${i + 1}. ${who} — ${entry.count}${money(entry.micros)}`;
          }),
  };
}

/** The money lines of `/usage`: spent today and over 30 days (of the budget), yours, and what merging saved. */
function moneyLines(
  { t, language }: Pick<Translator, 't' | 'language'>,
  money: UsageFigures['money'],
): string[] {
  if (money === undefined) return [];
  if (money === 'none') return [t('usage.money_none')];
  const format = (micros: number) => formatMoney(language, micros);
  const lines = [
    money.budget === undefined
      ? t('usage.money_today', { today: format(money.today), month: format(money.last30) })
      : t('usage.money_budget', {
          today: format(money.today),
          budget: format(money.budget),
          month: format(money.last30),
        }),
    t('usage.you_spent', { amount: format(money.memberToday) }),
  ];
  if (money.saved30 > 0) lines.push(t('usage.money_saved', { saved: format(money.saved30) }));
  return lines;
}

/** The chart's input: the history's days (with what each cost, on v3) and the daily limit line. */
export function chartInput(figures: UsageFigures): ChartInput {
  return {
    days: (figures.history?.days ?? []).map((day) => ({
      label: shortDay(day.day),
      count: day.total,
      // Digits and `$` only: the image's text is the same in every language.
      ...(day.spend === undefined ? {} : { money: formatMoney('en', day.spend.micros) }),
    })),
    limit: figures.server.limit,
  };
}

/** The chart's alt text: what it shows, with every figure, for screen readers (Discord allows 1024). */
export function chartAltText({ t, language }: Translator, figures: UsageFigures): string {
  const days = figures.history?.days ?? [];
  const values = days
    .map((day) => {
      const money = day.spend === undefined ? '' : ` (${formatMoney(language, day.spend.micros)})`;
      return `${shortDay(day.day)}: ${day.total}${money}`;
    })
    .join(', ');
  const head =
    figures.server.limit === undefined
      ? t('usage.alt', { count: days.length })
      : t('usage.alt_limit', { count: days.length, limit: figures.server.limit });
  return `${head} ${values}`.slice(0, 1024);
}
