/** Forgetting a server: its data deleted on `/config forget`, or after a removal and `DATA_RETENTION`. */
export { createForgetting, type Forgetting } from './create.ts';
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
