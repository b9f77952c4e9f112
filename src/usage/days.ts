/** Calendar days (UTC) for usage counts: the bars of the chart and "today" of a member's share. */

const DAY_MS = 86_400_000;

/** `2026-05-14` for any moment of that UTC day. */
export function dayKey(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 10);
}

/** The `count` days up to and including the day of `now`, oldest first. */
export function lastDays(now: number, count: number): string[] {
  return Array.from({ length: count }, (_, i) => dayKey(now - (count - 1 - i) * DAY_MS));
}

/** When the UTC day of `now` ends (epoch ms): when a member's daily count starts again. */
export function nextDayStart(now: number): number {
  return (Math.floor(now / DAY_MS) + 1) * DAY_MS;
}

/** `2026-05-14` → `05-14`, the chart's short label. */
export function shortDay(day: string): string {
  return day.slice(5);
}
