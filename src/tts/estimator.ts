import type { Model } from './types.ts';

interface Sample {
  readonly textLength: number;
  readonly ms: number;
}

const MAX_SAMPLES = 50;

/**
 * Learns how long generations take, per model, as a line `a + b · length`
 * fitted to recent finished generations, so polls are not spent before a
 * task can be done.
 */
export class GenerationEstimator {
  readonly #samples = new Map<Model, Sample[]>();

  /** Records that a generation of `textLength` characters took about `ms`. */
  observe(model: Model, textLength: number, ms: number): void {
    const samples = this.#samples.get(model) ?? [];
    samples.push({ textLength, ms: Math.max(0, ms) });
    if (samples.length > MAX_SAMPLES) samples.shift();
    this.#samples.set(model, samples);
  }

  /** Expected generation time in ms; 0 when nothing is known yet. */
  estimate(model: Model, textLength: number): number {
    const samples = this.#samples.get(model) ?? [];
    if (samples.length === 0) return 0;
    const n = samples.length;
    const meanX = samples.reduce((sum, s) => sum + s.textLength, 0) / n;
    const meanY = samples.reduce((sum, s) => sum + s.ms, 0) / n;
    let covariance = 0;
    let variance = 0;
    for (const s of samples) {
      covariance += (s.textLength - meanX) * (s.ms - meanY);
      variance += (s.textLength - meanX) ** 2;
    }
    if (variance === 0) {
      return meanX === 0 ? meanY : (meanY / meanX) * textLength;
    }
    const slope = Math.max(0, covariance / variance);
    const intercept = meanY - slope * meanX;
    return Math.max(0, intercept + slope * textLength);
  }
}
