/**
 * What a key's v3 generations were billed: each submit's `tokens` and `dollar_cost`, kept
 * until the caller takes it, and the last price per token of each model, to predict a text's
 * cost before it is submitted (a stream's `started` frame carries no bill, so a streamed
 * generation is billed at the price last seen).
 */
import { type GenerationCost, PriceBook } from '../cost.ts';
import type { TtsMetrics } from '../metrics.ts';
import type { Model, SpeechRequest } from '../types.ts';

/** Bills not taken (an abandoned caller) are forgotten past this many, oldest first. */
const KEPT = 1000;

/** One key's bills and prices. */
export class Bills {
  readonly #prices = new PriceBook();
  readonly #unclaimed = new Map<string, GenerationCost>();
  readonly #metrics: TtsMetrics | undefined;

  constructor(metrics: TtsMetrics | undefined) {
    this.#metrics = metrics;
  }

  /**
   * A submit's answer billed generation `generationId` of `request`: counted and kept. An answer
   * without a bill (`cost` undefined) was billed all the same: at the price last seen, as a
   * stream is; with no price seen yet it stays unbilled.
   */
  billed(
    generationId: string,
    request: Pick<SpeechRequest, 'model' | 'text'>,
    answered: GenerationCost | undefined,
  ): void {
    const { model } = request;
    if (answered !== undefined) this.#prices.observe(model, answered);
    const cost = answered ?? this.predict(request);
    if (cost === undefined) return;
    this.#count(model, cost);
    this.#unclaimed.set(generationId, cost);
    for (const old of this.#unclaimed.keys()) {
      if (this.#unclaimed.size <= KEPT) break;
      this.#unclaimed.delete(old);
    }
  }

  /** A record read later (a poll) showed a bill: only the price is learned from it. */
  seen(model: Model, cost: GenerationCost): void {
    this.#prices.observe(model, cost);
  }

  /** A stream started: billed at the price last seen (counted), undefined when none was. */
  streamed(request: SpeechRequest): GenerationCost | undefined {
    const cost = this.predict(request);
    if (cost !== undefined) this.#count(request.model, cost);
    return cost;
  }

  /** True once a price of `model` was seen. */
  knows(model: Model): boolean {
    return this.#prices.knows(model);
  }

  /** The bill of a submitted generation, once: later callers (joiners) get none. */
  take(generationId: string): GenerationCost | undefined {
    const cost = this.#unclaimed.get(generationId);
    this.#unclaimed.delete(generationId);
    return cost;
  }

  /** What `request` will cost at the price last seen; undefined before any was seen. */
  predict(request: Pick<SpeechRequest, 'model' | 'text'>): GenerationCost | undefined {
    return this.#prices.predict(request.model, request.text);
  }

  #count(model: Model, cost: GenerationCost): void {
    this.#metrics?.billed?.(model, cost);
  }
}
