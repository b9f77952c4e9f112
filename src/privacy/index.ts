/** Forgetting a server: its data deleted on `/config forget`, or after a removal and `DATA_RETENTION`. */
export { type ForgetDependencies, type ForgetReport, ForgetService } from './forget.ts';
export { RemovalRecords } from './removals.ts';
export {
  deletionDue,
  nextSweepIn,
  type PendingRemoval,
  type RemovalAction,
  type RemovalFacts,
  removalAction,
} from './schedule.ts';
export {
  RemovalScheduler,
  type RemovalSchedulerOptions,
  SWEEP_EVERY_MS,
} from './scheduler.ts';

import { type ForgetDependencies, ForgetService } from './forget.ts';
import { RemovalRecords } from './removals.ts';
import { RemovalScheduler, type RemovalSchedulerOptions } from './scheduler.ts';

/** The forget service, and the removal scheduler over it and the bot's store, as the bot runs them. */
export function createForgetting(
  options: ForgetDependencies & Omit<RemovalSchedulerOptions, 'forget' | 'records' | 'logger'>,
): { service: ForgetService; scheduler: RemovalScheduler } {
  const service = new ForgetService(options);
  const scheduler = new RemovalScheduler({
    ...options,
    forget: service,
    records: new RemovalRecords(options.keyv),
    logger: options.logger.child({ subsystem: 'privacy' }),
  });
  return { service, scheduler };
}
