/**
 * What a v3 generation costs (docs/design/API-V3.md, Billing): `ceil(max(30, characters) / 4)` tokens
 * times the plan's per-token rate for the model, answered as `tokens` and `dollar_cost` by every
 * submit. Money is kept in integer micro-dollars, never summed as floats. Pure.
 */
import type { GenerationCost, Model } from './types.ts';

export type { GenerationCost };

/** Characters as the API counts them: code points. */
export function billedChars(text: string): number {
  return [...text].length;
}

/** Billed tokens of a text of `chars` characters: short texts are billed as 30 characters. */
export function billedTokens(chars: number): number {
  return Math.ceil(Math.max(30, chars) / 4);
}

/**
 * US dollars as integer micro-dollars (the API answers a JSON number such as `0.000008`), to
 * the nearest: a bill's figure is exact to far below a micro-dollar, so the product lands a
 * hair from a whole number, which rounding removes (`0.000008 * 1e6` is 7.999999999999999).
 */
export function microsOf(dollars: number): number {
  return Math.round(dollars * 1_000_000);
}

/** A decimal number as a string: what a server serialising decimals sends (`"0.000008"`, `"8E-7"`). */
const DECIMAL = /^\d+(\.\d*)?([eE][-+]?\d+)?$/;

/**
 * A non-negative figure of the answer (a JSON number, or a decimal in a string, no sign, no
 * spaces, no hex); else undefined. JSON's `-0` is 0: a bill of nothing, never shown "-$0.00".
 */
function figure(value: unknown): number | undefined {
  const number =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && DECIMAL.test(value)
        ? Number(value)
        : NaN;
  if (!Number.isFinite(number) || number < 0) return undefined;
  return number === 0 ? 0 : number;
}

/**
 * A generation's bill from the answer's `tokens` and `dollar_cost`, or undefined when either is
 * missing, negative, not a number, or past a safe integer (the caller then counts what it held
 * for the request). Never a float in the result: micro-dollars and tokens are whole.
 */
export function parseBill(tokens: unknown, dollars: unknown): GenerationCost | undefined {
  const count = figure(tokens);
  const amount = figure(dollars);
  if (count === undefined || amount === undefined || !Number.isSafeInteger(count)) return undefined;
  const micros = microsOf(amount);
  return Number.isSafeInteger(micros) ? { tokens: count, micros } : undefined;
}

/**
 * The last price per token each model was seen billed at, for a key: what a text will cost
 * before it is submitted. v3 publishes no rates (they are the plan's), so they are learned.
 */
export class PriceBook {
  readonly #seen = new Map<Model, GenerationCost>();

  /** Remembers a billed generation's price; bills of no tokens teach nothing. */
  observe(model: Model, cost: GenerationCost): void {
    if (cost.tokens > 0 && cost.micros >= 0) this.#seen.set(model, cost);
  }

  /** True once a price of `model` was seen. */
  knows(model: Model): boolean {
    return this.#seen.has(model);
  }

  /** What `text` will cost with `model` at the last price seen; undefined before any was seen. */
  predict(model: Model, text: string): GenerationCost | undefined {
    return costAt(this.#seen.get(model), billedTokens(billedChars(text)));
  }
}

/** `tokens` at the price of `seen` (micro-dollars rounded up: a reservation never falls short). */
export function costAt(
  seen: GenerationCost | undefined,
  tokens: number,
): GenerationCost | undefined {
  if (seen === undefined) return undefined;
  return { tokens, micros: Math.ceil((tokens * seen.micros) / seen.tokens) };
}
