import { MODELS, type Model } from './types.ts';

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
  /** How much it counts in a fit: 1 for a generation polled, less for the prior standing in. */
  readonly weight: number;
}

/** Generation time in ms as a line over the text length: a fixed part plus a part per character. */
export interface TimeLine {
  readonly intercept: number;
  readonly slope: number;
}

/** The generation times expected per model before any is learned. */
export type EstimatorPrior = Partial<Record<Model, TimeLine>>;

/** A prior from the time of a base generation: advance takes twice as long, as on the emulator. */
export function priorFor(base: TimeLine): EstimatorPrior {
  return { base, advance: { intercept: 2 * base.intercept, slope: 2 * base.slope } };
}

/**
 * The API's shape: the spec gives no timings, so the prior is the local emulator's
 * (`defaultGenerationMs`: 800 ms + 15 ms per character on base, twice that on advance).
 */
export const API_PRIOR: EstimatorPrior = priorFor({ intercept: 800, slope: 15 });

/** What an estimator learned about one model, as plain data (for the store). */
export interface LearnedModel {
  /** The latest generations, oldest first, as `[textLength, afterMs, byMs]`. */
  readonly samples: readonly (readonly [number, number, number])[];
  readonly marginMs: number;
}

/** What an estimator learned, per model. */
export type LearnedState = { readonly [M in Model]?: LearnedModel | undefined };

/** Options of a {@link GenerationEstimator}. */
export interface EstimatorOptions {
  /** Used while little is learned; without one, nothing is expected until a sample comes. */
  readonly prior?: EstimatorPrior | undefined;
  /** Called after every change of what is learned (to write it back). */
  readonly onChange?: (() => void) | undefined;
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
  fit: TrendFit | undefined;
  /** Set once it learned anything (a restore adopts stored state only before that). */
  learned: boolean;
}

const MAX_SAMPLES = 50;
/** Most refinement rounds of a fit (each one is cheap; most fits settle in a few). */
const FIT_ROUNDS = 30;
/** Share of planned first polls that should find the task done. */
export const FIRST_POLL_TARGET = 7 / 8;
/** How far one first poll moves the margin: a miss adds 7/8 of it, a hit takes 1/8. */
const MARGIN_STEP_MS = 300;
const MARGIN_LIMITS_MS = { min: -60_000, max: 10_000 } as const;
/** Lengths at which the prior stands in for samples: the API's shortest text and a long message. */
const PRIOR_LENGTHS = [30, 300] as const;
/**
 * What the prior counts for at each of its lengths with nothing learned, in samples: little, so
 * that the first generations that disagree move the line, and a wrong prior is soon forgotten.
 */
const PRIOR_WEIGHT = 0.3;
/** The prior fades as generations are learned, and is gone after this many. */
const PRIOR_FADE_SAMPLES = 6;
/** Share of the estimate a probe is aimed at (see `probeAfter`). */
export const PROBE_SHARE = 0.25;
/**
 * Generations in a row that no poll saw running (every first poll found the task done) after
 * which the estimate may be too slow: more than the first-poll target expects between two
 * misses (1 / (1 − 7/8) = 8 first polls per miss). See `probeAfter`.
 */
export const HIT_STREAK = Math.round(1 / (1 - FIRST_POLL_TARGET));
/** Share of the estimate a probe after a {@link HIT_STREAK} is aimed at (see `probeAfter`). */
export const STREAK_PROBE_SHARE = 0.5;
/**
 * How fast learned generations are forgotten: one counts half as much in the fit after this
 * many newer ones of its model, so a time that drifts (evening load) is followed within a few,
 * while one odd generation moves the line by a fraction.
 */
export const HALF_LIFE_SAMPLES = 6;
/**
 * The latest generations whose bounds scale the fitted line (see `recentScale`): the last two,
 * so that one odd generation alone does not move the estimate, and two that agree do at once.
 */
export const RECENT_SAMPLES = 2;
/** A share of the estimate by which the line may miss the recent bounds (a fit's rounding) before they scale it. */
const RECENT_TOLERANCE = 0.02;

/** The largest trend tried, in log time per generation (a tenth: the level triples in a dozen generations). */
const TREND_MAX = 0.1;
/** Grid steps of the trend on each side of 0. */
const TREND_STEPS = 20;
/** How many times the noise a trend must explain: two standard errors, squared. */
const TREND_EVIDENCE = 4;
/**
 * How many spreads (standard deviations of the log time the fit leaves) a trend must move the
 * level within {@link HALF_LIFE_SAMPLES} generations to be followed.
 */
const TREND_SPREADS = 2;
/** Fewest generations a trend is fitted to (a line and a trend: three parameters, and one to spare). */
const TREND_MIN_SAMPLES = 4;

/**
 * Learns how long generations take, per model, as a line `a + b · length` fitted to the
 * bounds that polling gave recent generations (starting from a prior, which fades as they
 * come), and when to poll a new one first so that about {@link FIRST_POLL_TARGET} of first
 * polls already find it done.
 */
export class GenerationEstimator {
  readonly #models = new Map<Model, ModelState>();
  readonly #prior: EstimatorPrior;
  readonly #onChange: (() => void) | undefined;

  constructor(options: EstimatorOptions = {}) {
    this.#prior = options.prior ?? {};
    this.#onChange = options.onChange;
  }

  /**
   * Records what polling learned about a finished generation of `textLength` characters. Bounds
   * that say nothing of a time are left out: not finite, or done by 0 ms (no task is done at its
   * submission: the submission's clock disagrees, e.g. a generation resumed from another
   * process's journal). Kept, the log distance to a bound of 0 (taken as 1 ms) counted as a
   * spread of 3.5, and re-checks of a steady API went from the lag budget to the longest interval.
   */
  observe(model: Model, textLength: number, bounds: DurationBounds): void {
    const sample = boundedSample(textLength, bounds.afterMs, bounds.byMs);
    if (sample === undefined) return;
    const state = this.#state(model);
    state.samples.push(sample);
    if (state.samples.length > MAX_SAMPLES) state.samples.shift();
    state.fit = undefined;
    state.learned = true;
    this.#onChange?.();
  }

  /** Expected generation time in ms; 0 when nothing is known yet (no sample and no prior). */
  estimate(model: Model, textLength: number): number {
    const state = this.#state(model);
    const samples = this.#withPrior(model, decayed(state.samples));
    if (samples.length === 0) return 0;
    state.fit ??= fitTrend(samples, state.samples.length >= PRIOR_FADE_SAMPLES);
    const { line, trend } = state.fit;
    // The recent bounds against the line where the trend put each of them (the newest at 1).
    const recent = state.samples.slice(-RECENT_SAMPLES);
    const scale = recentScale(
      recent,
      (n, i) => evaluate(line, n) * Math.exp(-trend * (recent.length - 1 - i)),
    );
    return Math.max(0, scale * Math.exp(trend) * evaluate(line, textLength));
  }

  /**
   * The trend followed: how much the log generation time grows per generation (0.05: 5 % slower
   * each), 0 when none is (a steady or jittered API, or fewer than the prior's generations
   * learned). For tests and diagnostics; {@link estimate} includes it.
   */
  trend(model: Model): number {
    this.estimate(model, 0);
    return this.#state(model).fit?.trend ?? 0;
  }

  /**
   * How widely the model's generation times scatter about the estimate, as a share of it (a
   * standard deviation of the log time): what the fit could not explain, per degree of freedom
   * (0 for a steady API, whose bounds all fit; about the spread of a jittered one's). 0 while
   * the prior still counts.
   */
  spread(model: Model): number {
    this.estimate(model, 0);
    return this.#state(model).fit?.spread ?? 0;
  }

  /**
   * How long a new generation of `textLength` characters will surely run, going by the latest
   * {@link RECENT_SAMPLES} generations: the smallest share of its estimate that they were seen
   * running, times the estimate; 0 while fewer are learned. A slow API (or model) shows here that
   * its generations run past the first poll's cap (`capMs`), so the cap can give way. One found
   * done at its first poll after the cap (the lift was not needed: the API is fast again) counts
   * as share 0 and brings the cap back at once; one found done within the cap says nothing about
   * it (a short text of a slow model) and is left out, but at least one must have been seen running.
   */
  surelyRunsMs(model: Model, textLength: number, capMs = 0): number {
    const recent = this.#state(model).samples.slice(-RECENT_SAMPLES);
    if (recent.length < RECENT_SAMPLES) return 0;
    const shares: number[] = [];
    for (const s of recent) {
      if (s.afterMs > 0) {
        const expected = this.estimate(model, s.textLength);
        shares.push(expected > 0 ? Math.min(1, s.afterMs / expected) : 0);
      } else if (s.byMs > capMs) {
        shares.push(0);
      }
    }
    return shares.length === 0 ? 0 : Math.min(...shares) * this.estimate(model, textLength);
  }

  /** When to poll a new generation first, in ms after submission; 0 when nothing is known yet. */
  firstPollAfter(model: Model, textLength: number): number {
    const expected = this.estimate(model, textLength);
    if (expected === 0) return 0;
    return Math.max(0, expected + this.#state(model).marginMs);
  }

  /**
   * When to probe a new generation before its first poll, in ms after submission: at
   * {@link PROBE_SHARE} of the estimate while the prior still counts and no generation learned
   * was seen running; else undefined (no probe). A first poll at the prior's time that finds
   * the task done cannot show that the prior is too slow (its bound agrees with the prior), so
   * an API five times faster would be polled at the prior's pace until the prior fades. A probe
   * that finds the task done bounds the line below the prior; one that finds it running
   * brackets it, and probing ends: an API of the prior's shape pays one poll, once per key
   * (what is learned is kept).
   *
   * Later, the same holds for an estimate learned on a slow API that is fast again (evening load
   * gone): each first poll finds the task done, at a bound that agrees with the estimate, and
   * the estimate stayed 2–3 times too slow for 20 generations. So after {@link HIT_STREAK}
   * generations in a row that no poll saw running (more hits than the target expects between
   * misses), a probe at {@link STREAK_PROBE_SHARE} of the estimate: one that finds the task done
   * bounds it at half the estimate (the latest bounds scale the line at once, and the next
   * generation probes again); one that finds it running ends the streak. On a steady API that is
   * one poll per streak of 8 hits (about +0.05 polls per generation).
   */
  probeAfter(model: Model, textLength: number): number | undefined {
    const { samples } = this.#state(model);
    const unconfirmed =
      this.#prior[model] !== undefined &&
      samples.length < PRIOR_FADE_SAMPLES &&
      samples.every((sample) => sample.afterMs === 0);
    const expected = this.estimate(model, textLength);
    if (!(expected > 0)) return undefined;
    if (unconfirmed) return expected * PROBE_SHARE;
    return unseenRunning(samples) >= HIT_STREAK ? expected * STREAK_PROBE_SHARE : undefined;
  }

  /**
   * Tells how a first poll timed by {@link firstPollAfter} fared (`done`: it found the task
   * finished). Misses move the margin up far, hits down a little, so the share of hits
   * settles near the target whatever the spread of generation times.
   */
  firstPollResult(model: Model, done: boolean): void {
    const state = this.#state(model);
    const step = done ? -(1 - FIRST_POLL_TARGET) : FIRST_POLL_TARGET;
    // While the prior still counts, first polls mostly measure its error, which the line is
    // about to correct: a margin tuned to it would be wrong once the prior is gone.
    const learned =
      this.#prior[model] === undefined ? 1 : Math.min(1, state.samples.length / PRIOR_FADE_SAMPLES);
    state.marginMs = clampMargin(state.marginMs + learned * step * MARGIN_STEP_MS);
    state.learned = true;
    this.#onChange?.();
  }

  /** What was learned, as plain data that {@link restore} takes back (the prior is not in it). */
  snapshot(): LearnedState {
    const learned: { [M in Model]?: LearnedModel } = {};
    for (const [model, state] of this.#models) {
      if (!state.learned) continue;
      learned[model] = {
        samples: state.samples.map((s) => [s.textLength, s.afterMs, s.byMs] as const),
        marginMs: state.marginMs,
      };
    }
    return learned;
  }

  /**
   * Takes back what an earlier {@link snapshot} held (e.g. from the store after a start), for
   * each model this estimator has learned nothing about yet; values out of range are clamped.
   */
  restore(learned: LearnedState): void {
    for (const model of MODELS) {
      const saved = learned[model];
      const state = this.#state(model);
      if (saved === undefined || state.learned) continue;
      state.samples.length = 0;
      for (const [textLength, afterMs, byMs] of saved.samples.slice(-MAX_SAMPLES)) {
        const sample = boundedSample(textLength, afterMs, byMs);
        if (sample !== undefined) state.samples.push(sample);
      }
      state.marginMs = Number.isFinite(saved.marginMs) ? clampMargin(saved.marginMs) : 0;
      state.fit = undefined;
      state.learned = true;
    }
  }

  /**
   * The samples of a fit: the learned ones, and the prior's stand-ins while they still count,
   * scaled as little as the learned bounds require (see {@link priorScale}).
   */
  #withPrior(model: Model, samples: readonly Sample[]): readonly Sample[] {
    const prior = this.#prior[model];
    const weight = PRIOR_WEIGHT * Math.max(0, 1 - samples.length / PRIOR_FADE_SAMPLES);
    if (prior === undefined || weight === 0) return samples;
    const scale = priorScale(prior, samples);
    const standIns = PRIOR_LENGTHS.map((textLength) => {
      const ms = scale * Math.max(0, prior.intercept + prior.slope * textLength);
      return { textLength, afterMs: ms, byMs: ms, weight };
    });
    return [...standIns, ...samples];
  }

  #state(model: Model): ModelState {
    let state = this.#models.get(model);
    if (state === undefined) {
      state = { samples: [], marginMs: 0, fit: undefined, learned: false };
      this.#models.set(model, state);
    }
    return state;
  }
}

/** How many of the latest generations in a row no poll saw running (bounded above only). */
function unseenRunning(samples: readonly Sample[]): number {
  let count = 0;
  for (let i = samples.length - 1; i >= 0 && samples[i]?.afterMs === 0; i--) count++;
  return count;
}

/** A learned sample from its bounds, clamped into range; undefined when they say nothing of a time (see `observe`). */
function boundedSample(textLength: number, afterMs: number, byMs: number): Sample | undefined {
  if (![textLength, afterMs, byMs].every(Number.isFinite) || !(byMs > 0)) return undefined;
  return {
    textLength: Math.max(0, textLength),
    afterMs: Math.min(Math.max(0, afterMs), byMs),
    byMs,
    weight: 1,
  };
}

/**
 * The factor on the prior that every learned bound allows (done by `byMs`, running at
 * `afterMs`): 1 while the prior fits them; the largest allowed when it is too slow, and the
 * middle of the allowed range when it is too fast. Unscaled, a prior too slow would hold the line at
 * the top of every bound (each poll it times finds the task done just when it says), and one
 * too fast at the bottom; scaled, it keeps its shape (the slope for lengths not seen yet).
 */
function priorScale(prior: TimeLine, samples: readonly Sample[]): number {
  let low = 0;
  let high = Number.POSITIVE_INFINITY;
  for (const s of samples) {
    const ms = prior.intercept + prior.slope * s.textLength;
    if (!(ms > 0)) continue;
    low = Math.max(low, s.afterMs / ms);
    high = Math.min(high, s.byMs / ms);
  }
  // Slower than the prior: the middle of what the bounds allow, not their lower end (where
  // a first poll would find the task still running, as the poll that gave that bound did).
  if (low > 1 && low <= high && Number.isFinite(high)) return (low + high) / 2;
  return Math.min(high, Math.max(low, 1));
}

/**
 * How far the line must be scaled to agree with the latest {@link RECENT_SAMPLES} generations:
 * 1 while it does (within {@link RECENT_TOLERANCE}). A time that drifts (evening load) leaves the recent bounds on one side of a
 * fit that still remembers older generations; the factor follows at once: the middle of what
 * the recent brackets allow when they say "slower" (a running poll bounds it from below, done
 * from above), the largest factor their upper bounds allow when they say "faster". When the
 * recent bounds disagree with each other (jitter), no factor fits them all and the line stands.
 */
function recentScale(
  samples: readonly Sample[],
  at: (textLength: number, index: number) => number,
): number {
  let low = 0;
  let high = Number.POSITIVE_INFINITY;
  for (const [i, s] of samples.entries()) {
    const ms = at(s.textLength, i);
    if (!(ms > 0)) continue;
    low = Math.max(low, s.afterMs / ms);
    high = Math.min(high, s.byMs / ms);
  }
  if (low > high) return 1;
  if (low > 1 + RECENT_TOLERANCE) return Number.isFinite(high) ? (low + high) / 2 : low;
  return high < 1 - RECENT_TOLERANCE ? high : 1;
}

/** A line and the trend of the level along it (see {@link fitTrend}). */
interface TrendFit {
  readonly line: Line;
  /** Growth of the log time per generation: the newest generation sits on the line, the next one `e^trend` above. */
  readonly trend: number;
  /**
   * The spread of log times the fit leaves unexplained: the root mean square of its log
   * distances from the bounds, per degree of freedom (0 while the prior still counts).
   */
  readonly spread: number;
}

/**
 * A time that drifts (evening load) at a steady pace: the line fitted with each older
 * generation's bounds scaled by `e^(trend · age)`, the trend tried on a grid, each judged by the
 * log distance of the line from the bounds. The noise is what the best fit leaves per degree of
 * freedom, and at least what the brackets' own width leaves. A trend is followed only when it
 * (a) explains the bounds better than no trend by {@link TREND_EVIDENCE} times that noise (two
 * standard errors), and (b) moves the level within {@link HALF_LIFE_SAMPLES} generations by more
 * than {@link TREND_SPREADS} spreads: a steady API leaves nothing to explain, a jittered one
 * leaves a spread that hides the trends its neighbours make by chance; either keeps trend 0 and
 * the flat line, as before. Of the trends within one noise unit of the best, the one nearest 0
 * is taken (what the bounds allow, not more: an overshoot is paid in lag on every poll).
 */
function fitTrend(samples: readonly Sample[], allowed: boolean): TrendFit {
  const flat = fitBounded(samples);
  if (!allowed || samples.length < TREND_MIN_SAMPLES) return { line: flat, trend: 0, spread: 0 };
  const newest = samples.length - 1;
  const at = (trend: number) => {
    const shifted = samples.map((s, i) => {
      const factor = Math.exp(trend * (newest - i));
      return { ...s, afterMs: s.afterMs * factor, byMs: s.byMs * factor };
    });
    const line = trend === 0 ? flat : fitBounded(shifted);
    return { line, trend, misfit: logMisfit(shifted, line) };
  };
  const tried: { line: Line; trend: number; misfit: number }[] = [];
  for (let k = -TREND_STEPS; k <= TREND_STEPS; k++) tried.push(at((k * TREND_MAX) / TREND_STEPS));
  const zero = tried[TREND_STEPS] ?? at(0);
  let best = zero;
  for (const t of tried) if (t.misfit < best.misfit) best = t;
  const weight = samples.reduce((sum, s) => sum + s.weight, 0);
  const noise = Math.max(
    best.misfit / Math.max(1, informative(samples, best) - 3),
    bracketNoise(samples),
  );
  // A trend the spread would hide over the memory of the fit does not help the next poll:
  // jittered neighbours make such trends by chance.
  const lost = Math.abs(best.trend) * HALF_LIFE_SAMPLES <= TREND_SPREADS * Math.sqrt(noise);
  if (lost || !(zero.misfit - best.misfit > TREND_EVIDENCE * noise)) {
    return { line: flat, trend: 0, spread: Math.sqrt(zero.misfit / Math.max(1, weight - 2)) };
  }
  let chosen = best;
  for (const t of tried) {
    if (Math.sign(t.trend) !== Math.sign(best.trend) || t.misfit > best.misfit + noise) continue;
    if (Math.abs(t.trend) < Math.abs(chosen.trend)) chosen = t;
  }
  return {
    line: chosen.line,
    trend: chosen.trend,
    spread: Math.sqrt(chosen.misfit / Math.max(1, weight - 3)),
  };
}

/**
 * The weight of the samples that can leave a distance from a fit: those bracketed, and those
 * bounded above only that the fit passes. The others (found done at their first poll, as every
 * short text is) lie under the line whatever it is and say nothing of the noise: counted as
 * degrees of freedom, a history of short texts made one generation 3 % slow look like a trend.
 */
function informative(
  samples: readonly Sample[],
  fit: { readonly line: Line; readonly trend: number },
): number {
  const newest = samples.length - 1;
  let weight = 0;
  for (const [i, s] of samples.entries()) {
    const value = evaluate(fit.line, s.textLength) * Math.exp(-fit.trend * (newest - i));
    if (s.afterMs > 0 || value > s.byMs) weight += s.weight;
  }
  return weight;
}

/** Sum of squared log distances of the line from each sample's interval (weighted). */
function logMisfit(samples: readonly Sample[], line: Line): number {
  let sum = 0;
  for (const s of samples) {
    const value = Math.max(1, evaluate(line, s.textLength));
    sum += s.weight * Math.log(value / Math.max(1, clampTo(s, value))) ** 2;
  }
  return sum;
}

/**
 * The variance of a log time that a bracket alone leaves (a time anywhere within it: its
 * width squared over 12), averaged over the brackets: the least noise a fit may claim.
 */
function bracketNoise(samples: readonly Sample[]): number {
  let sum = 0;
  let weight = 0;
  for (const s of samples) {
    if (!(s.afterMs > 0)) continue;
    sum += (s.weight * Math.log(s.byMs / s.afterMs) ** 2) / 12;
    weight += s.weight;
  }
  return weight > 0 ? sum / weight : 0;
}

/** The samples weighted by age: the newest counts 1, one {@link HALF_LIFE_SAMPLES} older half. */
function decayed(samples: readonly Sample[]): Sample[] {
  const newest = samples.length - 1;
  return samples.map((s, i) => ({
    ...s,
    weight: s.weight * 0.5 ** ((newest - i) / HALF_LIFE_SAMPLES),
  }));
}

function clampMargin(ms: number): number {
  return Math.min(MARGIN_LIMITS_MS.max, Math.max(MARGIN_LIMITS_MS.min, ms));
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

function clampTo(bounds: DurationBounds, value: number): number {
  return Math.min(bounds.byMs, Math.max(bounds.afterMs, value));
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
