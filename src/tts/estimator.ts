import type { Model } from './types.ts';

/**
 * What polling learned about one finished generation, in ms after submission: a poll sent at
 * `afterMs` still saw it running (0 when none did), and one answered at `byMs` saw it done.
 */
export interface DurationBounds {
  readonly afterMs: number;
  readonly byMs: number;
}

interface Sample extends DurationBounds {
  readonly textLength: number;
}

interface Line {
  readonly intercept: number;
  readonly slope: number;
  /** Set when every sample had this one length: shorter texts scale down, longer ones stay flat. */
  readonly upTo?: number;
}

interface ModelState {
  readonly samples: Sample[];
  /** ms added to the estimate to time the first poll; moved by how first polls fare. */
  marginMs: number;
  line: Line | undefined;
}

const MAX_SAMPLES = 50;
/** Most refinement rounds of a fit (each one is cheap; most fits settle in a few). */
const FIT_ROUNDS = 30;
/** Share of planned first polls that should find the task done. */
export const FIRST_POLL_TARGET = 0.8;
/** How far one first poll moves the margin: a miss adds 80 % of it, a hit takes 20 %. */
const MARGIN_STEP_MS = 300;
const MARGIN_LIMITS_MS = { min: -60_000, max: 10_000 } as const;

/**
 * Learns how long generations take, per model, as a line `a + b · length` fitted to the
 * bounds that polling gave recent generations, and when to poll a new one first so that
 * about {@link FIRST_POLL_TARGET} of first polls already find it done.
 */
export class GenerationEstimator {
  readonly #models = new Map<Model, ModelState>();

  /** Records what polling learned about a finished generation of `textLength` characters. */
  observe(model: Model, textLength: number, bounds: DurationBounds): void {
    const state = this.#state(model);
    const byMs = Math.max(0, bounds.byMs);
    state.samples.push({ textLength, afterMs: Math.min(Math.max(0, bounds.afterMs), byMs), byMs });
    if (state.samples.length > MAX_SAMPLES) state.samples.shift();
    state.line = undefined;
  }

  /** Expected generation time in ms; 0 when nothing is known yet. */
  estimate(model: Model, textLength: number): number {
    const state = this.#models.get(model);
    if (state === undefined || state.samples.length === 0) return 0;
    state.line ??= fitBounded(state.samples);
    return Math.max(0, evaluate(state.line, textLength));
  }

  /** When to poll a new generation first, in ms after submission; 0 when nothing is known yet. */
  firstPollAfter(model: Model, textLength: number): number {
    const expected = this.estimate(model, textLength);
    if (expected === 0) return 0;
    return Math.max(0, expected + this.#state(model).marginMs);
  }

  /**
   * Tells how a first poll timed by {@link firstPollAfter} fared (`done`: it found the task
   * finished). Misses move the margin up far, hits down a little, so the share of hits
   * settles near the target whatever the spread of generation times.
   */
  firstPollResult(model: Model, done: boolean): void {
    const state = this.#state(model);
    const step = done ? -(1 - FIRST_POLL_TARGET) : FIRST_POLL_TARGET;
    state.marginMs = Math.min(
      MARGIN_LIMITS_MS.max,
      Math.max(MARGIN_LIMITS_MS.min, state.marginMs + step * MARGIN_STEP_MS),
    );
  }

  #state(model: Model): ModelState {
    let state = this.#models.get(model);
    if (state === undefined) {
      state = { samples: [], marginMs: 0, line: undefined };
      this.#models.set(model, state);
    }
    return state;
  }
}

// Without two lengths the slope is unknown; guessing low is safe, since a poll that comes
// too early shows the error (a later one would hide it).
function evaluate(line: Line, textLength: number): number {
  if (line.upTo !== undefined) return line.intercept * Math.min(1, textLength / line.upTo);
  return line.intercept + line.slope * textLength;
}

/**
 * A line through interval-censored samples: the one nearest to every sample's bounds (least
 * squares of the distance from each interval, zero inside it). It starts from the samples
 * bounded on both sides (their middles), since an upper bound alone says little.
 */
function fitBounded(samples: readonly Sample[]): Line {
  const bracketed = samples.filter((s) => s.afterMs > 0);
  const start = bracketed.length > 0 ? bracketed : samples;
  let line = fitLine(
    start,
    start.map((s) => (s.afterMs + s.byMs) / 2),
  );
  if (line.upTo !== undefined) {
    // One length: the value nearest all its intervals, found by refitting to their clamps.
    for (let round = 0; round < FIT_ROUNDS; round++) {
      line = fitLine(
        samples,
        samples.map((s) => clampTo(s, evaluate(line, s.textLength))),
      );
    }
    return line;
  }
  for (let round = 0; round < FIT_ROUNDS; round++) {
    const next = newtonStep(samples, line);
    if (next === undefined) break;
    line = next;
  }
  return line;
}

function clampTo(bounds: DurationBounds, value: number): number {
  return Math.min(bounds.byMs, Math.max(bounds.afterMs, value));
}

/** Sum of squared distances of the line from each sample's interval. */
function misfit(samples: readonly Sample[], line: Line): number {
  let sum = 0;
  for (const s of samples) {
    const value = evaluate(line, s.textLength);
    sum += (value - clampTo(s, value)) ** 2;
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
    g0 += r;
    g1 += r * x;
    h00 += 1;
    h01 += x;
    h11 += x * x;
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

/** Least squares; with a single length, see {@link evaluate}. */
function fitLine(samples: readonly Sample[], values: readonly number[]): Line {
  const n = samples.length;
  const meanX = samples.reduce((sum, s) => sum + s.textLength, 0) / n;
  const meanY = values.reduce((sum, v) => sum + v, 0) / n;
  let covariance = 0;
  let variance = 0;
  samples.forEach((s, i) => {
    covariance += (s.textLength - meanX) * ((values[i] ?? meanY) - meanY);
    variance += (s.textLength - meanX) ** 2;
  });
  if (variance === 0) {
    return { intercept: meanY, slope: 0, ...(meanX > 0 ? { upTo: meanX } : {}) };
  }
  const slope = Math.max(0, covariance / variance);
  return { intercept: meanY - slope * meanX, slope };
}
