/**
 * The one mapping from why the speaking path refused a request to what the member is told:
 * `/say`, previews and the chat reader all refuse through these, so one reason always reads
 * the same.
 */
import { UserError, userRefusal } from '../refusal/index.ts';
import type { SpeakOutcome } from '../voice/index.ts';
import type { BudgetCheck } from './budget.ts';
import type { ShareCheck } from './quota.ts';

/**
 * The member's words for a refused voice item; `notConnected` says whether the bot left
 * voice under a prepared request (`left_voice`) or was never there (`not_in_voice`).
 */
export function queueRefusal(
  outcome: Extract<SpeakOutcome, { ok: false }>,
  notConnected: 'left_voice' | 'not_in_voice',
): UserError {
  switch (outcome.reason) {
    case 'requester_full':
      return userRefusal('member_queue_full', {
        max: outcome.maxPerRequester,
        freesAt: outcome.freesAt,
      });
    case 'full':
      return new UserError('queue_full', { max: outcome.maxLength });
    case 'not_connected':
      return new UserError(notConnected, {});
  }
}

/** The member's words for a used-up daily share: how many a day, and when it starts again. */
export function shareRefusal(check: Extract<ShareCheck, { ok: false }>): UserError {
  return userRefusal('member_daily_limit', { share: check.share, freesAt: check.freesAt });
}

/**
 * The member's words for a server's daily budget spent, held by requests under way (none of
 * "$0.00 is left, a shorter text may fit"), or too little of it left for this request: how
 * much a day, what is left, and when it starts again.
 */
export function budgetRefusal(check: Extract<BudgetCheck, { ok: false }>): UserError {
  // Numbers for display only (formatted as US dollars in the reader's language), never summed.
  const budget = check.budgetMicros / 1_000_000;
  const when = `<t:${Math.ceil(check.freesAt / 1000)}:R>`;
  if (check.leftMicros === undefined) return new UserError('daily_budget', { budget, when });
  if (check.leftMicros === 0) return new UserError('daily_budget_held', { budget, when });
  return new UserError('daily_budget_left', {
    budget,
    left: check.leftMicros / 1_000_000,
    when,
  });
}
