/**
 * The line the estimator fits: generation time over text length, through samples known only
 * to lie within their bounds (interval-censored), by least squares and damped Newton steps.
 */
import { clampTo, type Sample } from './bounds.ts';

/** A fitted line, or a level scaled down to the one length seen (`upTo`). */
export interface Line {
  readonly intercept: number;
  readonly slope: number;
  /** Set when every sample had this one length: shorter texts scale down, longer ones stay flat. */
  readonly upTo?: number;
}

/** Most refinement rounds of a fit (each one is cheap; most fits settle in a few). */
const FIT_ROUNDS = 30;

/**
 * The line's time for a text length. Without two lengths the slope is unknown; guessing low is
 * safe, since a poll that comes too early shows the error (a later one would hide it).
 */
export function evaluate(line: Line, textLength: number): number {
  if (line.upTo !== undefined) return line.intercept * Math.min(1, textLength / line.upTo);
  return line.intercept + line.slope * textLength;
}

/**
 * A line through interval-censored samples: the one nearest to every sample's bounds (least
 * squares of the distance from each interval, zero inside it). It starts from the samples
 * bounded on both sides (their middles), since an upper bound alone says little.
 */
export function fitBounded(samples: readonly Sample[]): Line {
  const bracketed = samples.filter((s) => s.afterMs > 0);
  const start = bracketed.length > 0 ? bracketed : samples;
  let line = fitLine(
    start,
    start.map((s) => (s.afterMs + s.byMs) / 2),
  );
  if (line.upTo !== undefined) {
    // One length bracketed: the value nearest all its intervals, found by refitting to their
    // clamps. With other lengths bounded (short texts found done at their first poll), that gives
    // a line, a start that the Newton steps below take to the nearest one: left at the refits, it
    // stopped short of a line that fits every bound, and a trend could seem to explain the rest.
    for (let round = 0; round < FIT_ROUNDS; round++) {
      line = fitLine(
        samples,
        samples.map((s) => clampTo(s, evaluate(line, s.textLength))),
      );
    }
    if (line.upTo !== undefined) return line;
  }
  for (let round = 0; round < FIT_ROUNDS; round++) {
    const next = newtonStep(samples, line);
    if (next === undefined) break;
    line = next;
  }
  return line;
}

/** Sum of squared distances of the line from each sample's interval. */
function misfit(samples: readonly Sample[], line: Line): number {
  let sum = 0;
  for (const s of samples) {
    const value = evaluate(line, s.textLength);
    sum += s.weight * (value - clampTo(s, value)) ** 2;
  }
  return sum;
}

/** One damped Newton step on {@link misfit}; undefined once the line fits every interval or stops improving. */
function newtonStep(samples: readonly Sample[], line: Line): Line | undefined {
  let g0 = 0;
  let g1 = 0;
  let h00 = 0;
  let h01 = 0;
  let h11 = 0;
  for (const s of samples) {
    const value = evaluate(line, s.textLength);
    const r = value - clampTo(s, value);
    if (r === 0) continue;
    const x = s.textLength;
    const w = s.weight;
    g0 += w * r;
    g1 += w * r * x;
    h00 += w;
    h01 += w * x;
    h11 += w * x * x;
  }
  if (h00 === 0) return undefined;
  const det = h00 * h11 - h01 * h01;
  // The full step, then the intercept or the slope alone: violations at (nearly) one length
  // make the full step huge and useless.
  const directions: (readonly [number, number])[] = [
    ...(det > 0 ? [[-(h11 * g0 - h01 * g1) / det, -(h00 * g1 - h01 * g0) / det] as const] : []),
    [-g0 / h00, 0],
    ...(h11 > 0 ? [[0, -g1 / h11] as const] : []),
  ];
  const before = misfit(samples, line);
  for (const [da, db] of directions) {
    for (let t = 1; t > 1e-3; t /= 2) {
      const candidate = {
        intercept: line.intercept + t * da,
        slope: Math.max(0, line.slope + t * db),
      };
      if (misfit(samples, candidate) < before) return candidate;
    }
  }
  return undefined;
}

/** Weighted least squares; with a single length, see {@link evaluate}. */
function fitLine(samples: readonly Sample[], values: readonly number[]): Line {
  const total = samples.reduce((sum, s) => sum + s.weight, 0);
  const meanX = samples.reduce((sum, s) => sum + s.weight * s.textLength, 0) / total;
  const meanY = samples.reduce((sum, s, i) => sum + s.weight * (values[i] ?? 0), 0) / total;
  let covariance = 0;
  let variance = 0;
  samples.forEach((s, i) => {
    covariance += s.weight * (s.textLength - meanX) * ((values[i] ?? meanY) - meanY);
    variance += s.weight * (s.textLength - meanX) ** 2;
  });
  if (variance === 0) {
    return { intercept: meanY, slope: 0, ...(meanX > 0 ? { upTo: meanX } : {}) };
  }
  const slope = Math.max(0, covariance / variance);
  return { intercept: meanY - slope * meanX, slope };
}
