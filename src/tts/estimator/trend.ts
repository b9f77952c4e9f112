/**
 * The trend and the spread of generation times: a level that drifts at a steady pace (evening
 * load), how widely times scatter about the fit, and the scale the latest bounds ask of it at once.
 */
import { clampTo, HALF_LIFE_SAMPLES, type Sample } from './bounds.ts';
import { evaluate, fitBounded, type Line } from './line.ts';

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
 * How far the line must be scaled to agree with the latest {@link RECENT_SAMPLES} generations:
 * 1 while it does (within {@link RECENT_TOLERANCE}). A time that drifts (evening load) leaves the recent bounds on one side of a
 * fit that still remembers older generations; the factor follows at once: the middle of what
 * the recent brackets allow when they say "slower" (a running poll bounds it from below, done
 * from above), the largest factor their upper bounds allow when they say "faster". When the
 * recent bounds disagree with each other (jitter), no factor fits them all and the line stands.
 */
export function recentScale(
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
export interface TrendFit {
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
export function fitTrend(samples: readonly Sample[], allowed: boolean): TrendFit {
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
