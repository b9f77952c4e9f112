import { boundedSample, type DurationBounds, decayed, type Sample } from './estimator/bounds.ts';
import { evaluate } from './estimator/line.ts';
import { fitTrend, recentScale, type TrendFit } from './estimator/trend.ts';
import { MODELS, type Model } from './types.ts';

export type { DurationBounds } from './estimator/bounds.ts';

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

interface ModelState {
  readonly samples: Sample[];
  /** ms added to the estimate to time the first poll; moved by how first polls fare. */
  marginMs: number;
  fit: TrendFit | undefined;
  /** Set once it learned anything (a restore adopts stored state only before that). */
  learned: boolean;
}

const MAX_SAMPLES = 50;
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
 * The latest generations whose bounds scale the fitted line (see `recentScale`): the last two,
 * so that one odd generation alone does not move the estimate, and two that agree do at once.
 */
export const RECENT_SAMPLES = 2;

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

function clampMargin(ms: number): number {
  return Math.min(MARGIN_LIMITS_MS.max, Math.max(MARGIN_LIMITS_MS.min, ms));
}
