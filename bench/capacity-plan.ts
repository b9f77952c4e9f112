/**
 * What the capacity bench (`bench/capacity.ts`) steps through, and what it concludes: the most
 * servers speaking at once that one core holds without a gap. Pure.
 */
import type { Gap } from './many-voices-gaps.ts';

/** The default steps: servers speaking at once. */
export const DEFAULT_STEPS: readonly number[] = [8, 16, 24, 32, 48];

/** A gap between audible packets inside an item longer than this is a stutter (ms). */
export const GAP_MS = 60;

/** Speech heard, as a share of its text's length, below which a step does not hold. */
export const HEARD_AT_LEAST = 0.95;

/**
 * The steps from `BENCH_CAPACITY_STEPS` (e.g. `8,16`): whole numbers of servers, in increasing
 * order without repeats; unset or empty for {@link DEFAULT_STEPS}.
 */
export function capacitySteps(text: string | undefined): number[] {
  if (text === undefined || text.trim() === '') return [...DEFAULT_STEPS];
  const steps = text.split(',').map((s) => s.trim());
  for (const step of steps) {
    if (!/^\d+$/.test(step) || Number(step) < 1) {
      throw new RangeError(
        `BENCH_CAPACITY_STEPS must be whole numbers of servers, comma separated, got "${text}"`,
      );
    }
  }
  return [...new Set(steps.map(Number))].sort((a, b) => a - b);
}

/** How one shape (the long sentence or the short lines) sounded at one step. */
export interface ShapeOutcome {
  /** Gaps (ms) between audible packets inside items, every server's, as the receiver stamped them. */
  readonly gaps: readonly number[];
  /** The same gaps less the receiver's own lateness when it stamped their end ({@link lessReceiverLateness}). */
  readonly botGaps: readonly number[];
  /** Speech heard over speech asked for (1 = all of it). */
  readonly heardShare: number;
}

/** One step: both shapes at `servers` servers speaking at once. */
export interface StepOutcome {
  readonly servers: number;
  readonly shapes: readonly ShapeOutcome[];
}

/** The gaps over {@link GAP_MS}: the stutters a listener hears. */
export function stutters(gaps: readonly number[]): number[] {
  return gaps.filter((g) => g > GAP_MS);
}

/**
 * Which gaps a verdict counts: as stamped (`gaps`), or less what the receiver's own stalls
 * explain (`botGaps`).
 */
export type GapsCounted = 'gaps' | 'botGaps';

/** Whether a step held: no gap over 60 ms and all speech heard, in every shape. */
export function holds(step: StepOutcome, counted: GapsCounted = 'gaps'): boolean {
  return step.shapes.every(
    (s) => stutters(s[counted]).length === 0 && s.heardShare >= HEARD_AT_LEAST,
  );
}

/**
 * Each gap less how late the receiver may have stamped the packet that ended it. The receiver
 * stamps arrivals in its event loop, where a timer also ticks every `tickMs` (`ticks`: the times
 * it ran, increasing); a packet handled at `t` may have waited since the tick before the last
 * one before `t`, less one tick's period (an idle loop handles a packet at once). So a gap of 80
 * ms that ended while the receiver was 30 ms behind counts as 50: a lower bound on the gap the
 * bot made. No tick before a gap: no lateness known, nothing taken off.
 */
export function lessReceiverLateness(
  gaps: readonly Gap[],
  ticks: readonly number[],
  tickMs: number,
): number[] {
  return gaps.map((gap) => {
    const last = lastAtOrBefore(ticks, gap.endedAt);
    const before = last < 1 ? undefined : ticks[last - 1];
    if (before === undefined) return gap.ms;
    const lateness = Math.max(0, gap.endedAt - before - tickMs);
    return Math.max(0, gap.ms - lateness);
  });
}

/** Index of the last value at or before `t` in increasing `values` (-1 when none). */
function lastAtOrBefore(values: readonly number[], t: number): number {
  let low = 0;
  let high = values.length - 1;
  let found = -1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    if ((values[mid] ?? Number.POSITIVE_INFINITY) <= t) {
      found = mid;
      low = mid + 1;
    } else {
      high = mid - 1;
    }
  }
  return found;
}

/**
 * What one core holds: the largest step that held (`undefined` when none did), and the smaller
 * steps that did not (a timing on a shared machine need not be monotone; say so beside it).
 */
export function capacityOf(
  steps: readonly StepOutcome[],
  counted: GapsCounted = 'gaps',
): {
  holds: number | undefined;
  failedBelow: number[];
} {
  const held = steps.filter((s) => holds(s, counted)).map((s) => s.servers);
  const largest = held.length === 0 ? undefined : Math.max(...held);
  const failedBelow =
    largest === undefined
      ? []
      : steps.filter((s) => s.servers < largest && !holds(s, counted)).map((s) => s.servers);
  return { holds: largest, failedBelow };
}
