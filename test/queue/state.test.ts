import { describe, expect, test } from 'vitest';
import {
  canTransition,
  IllegalTransitionError,
  ITEM_EVENTS,
  ITEM_STATES,
  type ItemEvent,
  type ItemState,
  isTerminal,
  transition,
} from '../../src/queue/index.ts';

const legal: [ItemState, ItemEvent, ItemState][] = [
  ['queued', 'startGeneration', 'generating'],
  ['queued', 'skip', 'skipped'],
  ['queued', 'cancel', 'cancelled'],
  ['generating', 'generated', 'ready'],
  ['generating', 'generationFailed', 'failed'],
  ['generating', 'skip', 'skipped'],
  ['generating', 'cancel', 'cancelled'],
  ['ready', 'startPlaying', 'playing'],
  ['ready', 'skip', 'skipped'],
  ['ready', 'cancel', 'cancelled'],
  ['playing', 'finished', 'played'],
  ['playing', 'playbackFailed', 'failed'],
  ['playing', 'skip', 'skipped'],
  ['playing', 'cancel', 'cancelled'],
];

const isLegal = (state: ItemState, event: ItemEvent) =>
  legal.some(([from, on]) => from === state && on === event);
const illegal: [ItemState, ItemEvent][] = ITEM_STATES.flatMap((state) =>
  ITEM_EVENTS.filter((event) => !isLegal(state, event)).map((event): [ItemState, ItemEvent] => [
    state,
    event,
  ]),
);

describe('transition', () => {
  test.each(legal)('%s --%s--> %s', (from, event, to) => {
    expect(canTransition(from, event)).toBe(true);
    expect(transition(from, event)).toBe(to);
  });

  test.each(illegal)('%s --%s--> throws', (from, event) => {
    expect(canTransition(from, event)).toBe(false);
    expect(() => transition(from, event)).toThrow(IllegalTransitionError);
  });

  test('the error names the state and the event', () => {
    const error = (() => {
      try {
        transition('played', 'skip');
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(IllegalTransitionError);
    expect(error).toMatchObject({ from: 'played', event: 'skip' });
  });

  test('skip and cancel apply to every live state', () => {
    const live = ITEM_STATES.filter((state) => !isTerminal(state));
    expect(ITEM_STATES.filter((state) => canTransition(state, 'skip'))).toEqual(live);
    expect(ITEM_STATES.filter((state) => canTransition(state, 'cancel'))).toEqual(live);
  });
});

describe('isTerminal', () => {
  test.each([
    ['queued', false],
    ['generating', false],
    ['ready', false],
    ['playing', false],
    ['played', true],
    ['failed', true],
    ['skipped', true],
    ['cancelled', true],
  ] as const)('%s → %s', (state, terminal) => {
    expect(isTerminal(state)).toBe(terminal);
  });

  test('terminal states have no way out, the others have one', () => {
    for (const state of ITEM_STATES) {
      const exits = ITEM_EVENTS.filter((event) => canTransition(state, event));
      expect(exits.length === 0).toBe(isTerminal(state));
    }
  });
});
