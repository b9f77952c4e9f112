/**
 * What the capacity bench (`bench/capacity.ts`) steps through, and what it concludes: the most
 * servers speaking at once that one core holds without a gap. Pure.
 */

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
  /** Gaps (ms) between audible packets inside items, every server's. */
  readonly gaps: readonly number[];
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

/** Whether a step held: no gap over 60 ms and all speech heard, in every shape. */
export function holds(step: StepOutcome): boolean {
  return step.shapes.every((s) => stutters(s.gaps).length === 0 && s.heardShare >= HEARD_AT_LEAST);
}

/**
 * What one core holds: the largest step that held (`undefined` when none did), and the smaller
 * steps that did not (a timing on a shared machine need not be monotone; say so beside it).
 */
export function capacityOf(steps: readonly StepOutcome[]): {
  holds: number | undefined;
  failedBelow: number[];
} {
  const held = steps.filter(holds).map((s) => s.servers);
  const largest = held.length === 0 ? undefined : Math.max(...held);
  const failedBelow =
    largest === undefined
      ? []
      : steps.filter((s) => s.servers < largest && !holds(s)).map((s) => s.servers);
  return { holds: largest, failedBelow };
}
