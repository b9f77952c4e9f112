/** Per-guild speech queue: fair play order, lazy generation window, item state machine. */
export {
  estimateStart,
  expectedSpeechMs,
  SPOKEN_CHARACTERS_PER_SECOND,
  type WaitInput,
} from './estimate.ts';
export { FairOrder, type Turnable } from './fairness.ts';
export { DEFAULT_LOOKAHEAD, DEFAULT_MAX_LENGTH, SpeechQueue } from './queue.ts';
export {
  canTransition,
  IllegalTransitionError,
  ITEM_EVENTS,
  ITEM_STATES,
  type ItemEvent,
  type ItemState,
  isTerminal,
  TERMINAL_STATES,
  transition,
} from './state.ts';
export type {
  AffectedItem,
  EnqueueResult,
  QueueItem,
  QueuePosition,
  QueueTransition,
  SpeechQueueOptions,
  UpdateResult,
} from './types.ts';
