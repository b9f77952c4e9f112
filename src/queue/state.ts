/**
 * Lifecycle of one speech item: a string union and the one transition function that
 * every state change goes through.
 */

/** Where an item is in its life. The last four are terminal: nothing leaves them. */
export type ItemState =
  | 'queued'
  | 'generating'
  | 'ready'
  | 'playing'
  | 'played'
  | 'failed'
  | 'skipped'
  | 'cancelled';

/** What can happen to an item. `cancel` is sent by both `remove` and `clear`. */
export type ItemEvent =
  | 'startGeneration'
  | 'generated'
  | 'generationFailed'
  | 'startPlaying'
  | 'finished'
  | 'playbackFailed'
  | 'skip'
  | 'cancel';

/** Every state, in lifecycle order (for exhaustive tests and displays). */
export const ITEM_STATES: readonly ItemState[] = [
  'queued',
  'generating',
  'ready',
  'playing',
  'played',
  'failed',
  'skipped',
  'cancelled',
];

/** Every event. */
export const ITEM_EVENTS: readonly ItemEvent[] = [
  'startGeneration',
  'generated',
  'generationFailed',
  'startPlaying',
  'finished',
  'playbackFailed',
  'skip',
  'cancel',
];

/** States an item never leaves; each item ends in exactly one of them. */
export const TERMINAL_STATES: ReadonlySet<ItemState> = new Set<ItemState>([
  'played',
  'failed',
  'skipped',
  'cancelled',
]);

// The only legal moves. `skip` ends the item that is up (playing, or next while nothing
// plays); `cancel` comes from a requester's remove or from clear.
const TRANSITIONS: Readonly<Record<ItemState, Partial<Record<ItemEvent, ItemState>>>> = {
  queued: { startGeneration: 'generating', skip: 'skipped', cancel: 'cancelled' },
  generating: {
    generated: 'ready',
    generationFailed: 'failed',
    skip: 'skipped',
    cancel: 'cancelled',
  },
  ready: { startPlaying: 'playing', skip: 'skipped', cancel: 'cancelled' },
  playing: {
    finished: 'played',
    playbackFailed: 'failed',
    skip: 'skipped',
    cancel: 'cancelled',
  },
  played: {},
  failed: {},
  skipped: {},
  cancelled: {},
};

/** Thrown by `transition` for a move the state machine does not allow. */
export class IllegalTransitionError extends Error {
  readonly from: ItemState;
  readonly event: ItemEvent;

  constructor(from: ItemState, event: ItemEvent) {
    super(`Illegal queue item transition: '${event}' in state '${from}'`);
    this.name = 'IllegalTransitionError';
    this.from = from;
    this.event = event;
  }
}

/** True when `event` is allowed in state `from`. */
export function canTransition(from: ItemState, event: ItemEvent): boolean {
  return TRANSITIONS[from][event] !== undefined;
}

/** The state after `event` in state `from`; throws `IllegalTransitionError` on an illegal move. */
export function transition(from: ItemState, event: ItemEvent): ItemState {
  const to = TRANSITIONS[from][event];
  if (to === undefined) throw new IllegalTransitionError(from, event);
  return to;
}

/** True for states an item never leaves. */
export function isTerminal(state: ItemState): boolean {
  return TERMINAL_STATES.has(state);
}
