/** Pure helpers of the benchmark: summaries, ratios, targets and the results table. */

/** Median and 95th percentile (nearest rank) of some measurements; NaN when there are none. */
export interface Summary {
  readonly n: number;
  readonly median: number;
  readonly p95: number;
}

/** The value at quantile `q` (0–1) by nearest rank; NaN for no values. */
export function percentile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1] ?? Number.NaN;
}

/** Median and p95 of `values`. */
export function summarize(values: readonly number[]): Summary {
  return { n: values.length, median: percentile(values, 0.5), p95: percentile(values, 0.95) };
}

/** Mean of `values`; NaN for none. */
export function mean(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  return values.reduce((sum, v) => sum + v, 0) / values.length;
}

/** How far each gap between consecutive arrivals is from the packet period, in ms. */
export function jitterMs(arrivals: readonly number[], periodMs = 20): number[] {
  const deviations: number[] = [];
  for (let i = 1; i < arrivals.length; i++) {
    deviations.push(Math.abs((arrivals[i] ?? 0) - (arrivals[i - 1] ?? 0) - periodMs));
  }
  return deviations;
}

/** The lowest and highest of the groups' medians, and their difference: how unequal the waits were. */
export function medianSpread(groups: ReadonlyMap<string, readonly number[]>): {
  readonly lowest: number;
  readonly highest: number;
  readonly spread: number;
} {
  const medians = [...groups.values()].filter((g) => g.length > 0).map((g) => percentile(g, 0.5));
  if (medians.length === 0) return { lowest: Number.NaN, highest: Number.NaN, spread: Number.NaN };
  const lowest = Math.min(...medians);
  const highest = Math.max(...medians);
  return { lowest, highest, spread: highest - lowest };
}

/**
 * Events per window once a limit of `limit` per `windowMs` is saturated: the whole windows'
 * worth of events that followed the first window's worth, over the time from its last event
 * to the last of them (a partial window at the end is left out). So the first window's shape
 * does not count, whether its events went at once or while a pipeline filled (20 at once then
 * 20 a minute, or one every 3 s: both 20 a minute). A stream the server accepted never scores
 * above the limit (each event comes at least a window after the one `limit` before it), and
 * scores it exactly when every unit is used the moment it frees. NaN without a whole window
 * beyond the first.
 */
export function sustainedRate(times: readonly number[], limit: number, windowMs: number): number {
  const windows = Math.floor((times.length - limit) / limit);
  if (windows < 1) return Number.NaN;
  const sorted = [...times].sort((a, b) => a - b);
  const span = (sorted[limit - 1 + windows * limit] ?? 0) - (sorted[limit - 1] ?? 0);
  return span === 0 ? Number.POSITIVE_INFINITY : (windows * limit * windowMs) / span;
}

/** A target: the measured value must stay at or under (`max`) or at or over (`min`) a bound. */
export type Target = { readonly max: number } | { readonly min: number };

/** Whether `value` meets `target`; undefined when there is no target or no value. */
export function meets(value: number, target: Target | undefined): boolean | undefined {
  if (target === undefined || Number.isNaN(value)) return undefined;
  return 'max' in target ? value <= target.max : value >= target.min;
}

/** One line of the results table. */
export interface Row {
  readonly section: string;
  readonly measure: string;
  /** Ours, already formatted (e.g. "0.21 s / 0.48 s"). */
  readonly ours: string;
  /** The naive client's value, formatted, or "" when it has none. */
  readonly naive: string;
  /** Ours divided by naive, formatted, or "". */
  readonly ratio: string;
  /** The target as written in the issue, or "". */
  readonly target: string;
  readonly met: boolean | undefined;
}

/** A row with our figure alone: no naive client to compare with, and no target unless given. */
export function oursRow(
  section: string,
  measure: string,
  ours: string,
  target: { readonly text: string; readonly met: boolean | undefined } = {
    text: '',
    met: undefined,
  },
): Row {
  return { section, measure, ours, naive: '', ratio: '', target: target.text, met: target.met };
}

/** `ours / naive` as "0.25×"; "" when either is missing or naive is 0. */
export function formatRatio(ours: number, naive: number): string {
  if (!Number.isFinite(ours) || !Number.isFinite(naive) || naive === 0) return '';
  const r = ours / naive;
  return `${r < 10 ? r.toFixed(2) : r.toFixed(0)}×`;
}

/** A duration in ms as seconds ("1.23 s") or milliseconds below one second ("87 ms"). */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return '–';
  if (Math.abs(ms) < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(2)} s`;
}

/** "median / p95" of a summary in {@link formatMs} units. */
export function formatSummary(summary: Summary): string {
  if (summary.n === 0) return '–';
  return `${formatMs(summary.median)} / ${formatMs(summary.p95)}`;
}

/** A number with at most `digits` decimals, thousands separated. */
export function formatNumber(value: number, digits = 2): string {
  if (!Number.isFinite(value)) return '–';
  return value.toLocaleString('en-US', { maximumFractionDigits: digits });
}

function cell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ');
}

/** The rows as a Markdown table, sections in the order they first appear. */
export function markdownTable(rows: readonly Row[]): string {
  const header = ['Section', 'Measure', 'Ours', 'Naive client', 'Ours ÷ naive', 'Target', 'Met'];
  const lines = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`];
  for (const row of rows) {
    const met = row.met === undefined ? '' : row.met ? 'yes' : '**no**';
    const cells = [row.section, row.measure, row.ours, row.naive, row.ratio, row.target, met];
    lines.push(`| ${cells.map(cell).join(' | ')} |`);
  }
  return lines.join('\n');
}

/** The row every section has: 429 answers to us and to the naive client; the target is none. */
export function responses429Row(
  section: string,
  counts: { readonly ours: number; readonly naive: number },
  measure = 'responses 429',
): Row {
  return {
    section,
    measure,
    ours: String(counts.ours),
    naive: String(counts.naive),
    ratio: '',
    target: '0',
    met: meets(counts.ours, { max: 0 }),
  };
}
