/**
 * A server's daily budget (v3 bills each generation in money): whether one more fits, counting
 * what the ledger recorded today, what is reserved for requests not yet billed, and what this
 * one is predicted to cost. Pure, apart from the reservations' own bookkeeping.
 */
import { nextUtcDay } from '../store/index.ts';
import {
  billedChars,
  billedTokens,
  type GenerationCost,
  type SpeechRequest,
} from '../tts/index.ts';

/**
 * What a request is predicted to bill, as `Spending.reserveMoney` takes it: its billed tokens,
 * and its micro-dollars when the key's price for the model is known.
 */
export function predictedBill(
  client: {
    predictCost(request: Pick<SpeechRequest, 'model' | 'text'>): GenerationCost | undefined;
  },
  request: Pick<SpeechRequest, 'model' | 'text'>,
): { readonly tokens: number; readonly micros: number | undefined } {
  return {
    tokens: billedTokens(billedChars(request.text)),
    micros: client.predictCost(request)?.micros,
  };
}

/** Outcome of {@link checkBudget}. */
export type BudgetCheck =
  | { readonly ok: true }
  | {
      readonly ok: false;
      readonly budgetMicros: number;
      readonly freesAt: number;
      /**
       * What is left of the budget (less what is held) while the spend recorded today is under
       * it: the request is refused for its own cost (a shorter one may fit) or, at 0, because
       * requests under way hold the rest. Absent when the budget is spent.
       */
      readonly leftMicros?: number;
    };

/**
 * Whether a generation predicted to cost `predicted` micro-dollars fits in the server's daily
 * `budget` (micro-dollars; undefined or 0: none) with `spent` recorded today and `reserved`
 * under way. A prediction not yet possible (no price seen) counts as 0: the spend already at
 * the budget still refuses.
 */
export function checkBudget(input: {
  readonly spent: number;
  readonly reserved: number;
  readonly predicted: number | undefined;
  readonly budget: number | undefined;
  readonly now: number;
}): BudgetCheck {
  const { spent, reserved, predicted, budget, now } = input;
  if (budget === undefined || budget === 0) return { ok: true };
  const committed = spent + reserved;
  if (committed < budget && committed + (predicted ?? 0) <= budget) return { ok: true };
  const refused = { ok: false, budgetMicros: budget, freesAt: nextUtcDay(now) } as const;
  return spent >= budget ? refused : { ...refused, leftMicros: Math.max(0, budget - committed) };
}

/** True when the server's budget is spent: nothing more can be read or said today. */
export function budgetSpent(spent: number, budget: number | undefined): boolean {
  return budget !== undefined && budget > 0 && spent >= budget;
}

/** Micro-dollars held for requests predicted but not yet billed, per server; released by id, once. */
export class MoneyReservations {
  readonly #held = new Map<string, { readonly guildId: string } & GenerationCost>();
  readonly #byGuild = new Map<string, number>();

  /** Micro-dollars held in the server now. */
  held(guildId: string): number {
    return this.#byGuild.get(guildId) ?? 0;
  }

  /** What is held for request `id` (its predicted bill); undefined when nothing is. */
  of(id: string): GenerationCost | undefined {
    const hold = this.#held.get(id);
    return hold === undefined ? undefined : { tokens: hold.tokens, micros: hold.micros };
  }

  /**
   * Holds `micros` for request `id`, predicted for `tokens` billed tokens (a second hold of the
   * same id replaces the first). Nothing is held for 0.
   */
  hold(guildId: string, id: string, micros: number, tokens = 0): void {
    this.release(id);
    if (micros <= 0) return;
    this.#held.set(id, { guildId, micros, tokens });
    this.#byGuild.set(guildId, this.held(guildId) + micros);
  }

  /** Ends request `id`'s hold (billed, or ended without a generation); idempotent. */
  release(id: string): void {
    const hold = this.#held.get(id);
    if (hold === undefined) return;
    this.#held.delete(id);
    const left = this.held(hold.guildId) - hold.micros;
    if (left > 0) this.#byGuild.set(hold.guildId, left);
    else this.#byGuild.delete(hold.guildId);
  }
}

/**
 * What a merged chat turn saved, in micro-dollars: its lines `alone` (each billed at least 30
 * characters) at the turn's own price per token, less what the turn cost. 0 for one line, or
 * when merging saved nothing.
 */
export function mergeSavingMicros(alone: readonly string[], turn: GenerationCost): number {
  if (alone.length < 2 || turn.tokens === 0) return 0;
  const tokens = alone.reduce((sum, line) => sum + billedTokens(billedChars(line)), 0);
  const saved = tokens - turn.tokens;
  return saved <= 0 ? 0 : Math.floor((saved * turn.micros) / turn.tokens);
}
