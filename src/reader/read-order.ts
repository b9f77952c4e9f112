/**
 * The order a chat turn takes waiting messages in: paid messages (redemptions, cheers) ahead
 * of everyone, then priority chatters, then each chatter by their share of the last minute's
 * reading, with repeats riding in a chorus; a quiet chat only puts paid messages first.
 */
import type { TakePlan } from './batch-choice.ts';
import type { ChatterShare } from './chatter-share.ts';
import { priorityFirst } from './priority.ts';
import { repeatKey } from './repeats.ts';
import type { ReaderMessage } from './turn.ts';

/** The take plan of a turn at `now`: a busy chat's (shares and choruses) or a quiet one's. */
export function readOrder(
  busyChat: boolean,
  now: number,
  share: ChatterShare,
  cost: (message: ReaderMessage) => number,
): TakePlan<ReaderMessage> {
  const priority = (message: ReaderMessage): boolean => message.priority === true;
  // Paid messages (redemptions, cheers) go ahead of everyone, and no share holds them back.
  const paid = (message: ReaderMessage): boolean => message.paid === true;
  const first = (message: ReaderMessage): boolean => paid(message) || priority(message);
  const plan: TakePlan<ReaderMessage> = {
    order: (waiting) =>
      share.order(now, priorityFirst(priorityFirst(waiting, priority), paid), first),
    repeatKey: (message) =>
      message.kind === 'said' && !paid(message) ? repeatKey(message.text) : '',
    cost,
  };
  const plain: TakePlan<ReaderMessage> = {
    order: (waiting) => ({ ordered: priorityFirst(waiting, paid), held: [] }),
  };
  return busyChat ? plan : plain;
}
