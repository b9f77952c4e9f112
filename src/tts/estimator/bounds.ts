/**
 * What the estimator learns from one observation: the bounds polling gave a finished generation,
 * kept as a sample, weighted by its age, and the clamp of a time into them.
 */

/**
 * What polling learned about one finished generation, in ms after submission: a poll sent at
 * `afterMs` still saw it running (0 when none did), and one answered at `byMs` saw it done.
 */
export interface DurationBounds {
  readonly afterMs: number;
  readonly byMs: number;
}

/** One learned generation: its text length and bounds, and its weight in a fit. */
export interface Sample extends DurationBounds {
  readonly textLength: number;
  /** How much it counts in a fit: 1 for a generation polled, less for the prior standing in. */
  readonly weight: number;
}

/**
 * How fast learned generations are forgotten: one counts half as much in the fit after this
 * many newer ones of its model, so a time that drifts (evening load) is followed within a few,
 * while one odd generation moves the line by a fraction.
 */
export const HALF_LIFE_SAMPLES = 6;

/** A learned sample from its bounds, clamped into range; undefined when they say nothing of a time (see `observe`). */
export function boundedSample(
  textLength: number,
  afterMs: number,
  byMs: number,
): Sample | undefined {
  if (![textLength, afterMs, byMs].every(Number.isFinite) || !(byMs > 0)) return undefined;
  return {
    textLength: Math.max(0, textLength),
    afterMs: Math.min(Math.max(0, afterMs), byMs),
    byMs,
    weight: 1,
  };
}

/** The samples weighted by age: the newest counts 1, one {@link HALF_LIFE_SAMPLES} older half. */
export function decayed(samples: readonly Sample[]): Sample[] {
  const newest = samples.length - 1;
  return samples.map((s, i) => ({
    ...s,
    weight: s.weight * 0.5 ** ((newest - i) / HALF_LIFE_SAMPLES),
  }));
}

/** The value moved into the bounds: unchanged inside them, else the bound it passed. */
export function clampTo(bounds: DurationBounds, value: number): number {
  return Math.min(bounds.byMs, Math.max(bounds.afterMs, value));
}
