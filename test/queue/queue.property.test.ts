import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { canTransition, type ItemState, isTerminal, SpeechQueue } from '../../src/queue/index.ts';

const REQUESTERS = ['A', 'B', 'C', 'D'] as const;

type Op =
  | { kind: 'enqueue'; requester: string }
  | { kind: 'startGeneration' | 'generated' | 'generationFailed' | 'remove'; pick: number }
  | { kind: 'staleReport'; pick: number; report: 'markGenerating' | 'markReady' | 'finish' }
  | { kind: 'next' | 'finish' | 'playbackFailed' | 'skip' | 'clear' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('enqueue' as const),
      requester: fc.constantFrom(...REQUESTERS),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant('startGeneration' as const), pick: fc.nat() }),
  },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('generated' as const), pick: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('generationFailed' as const), pick: fc.nat() }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('staleReport' as const),
      pick: fc.nat(),
      report: fc.constantFrom('markGenerating' as const, 'markReady' as const, 'finish' as const),
    }),
  },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('next' as const) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('finish' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('playbackFailed' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('skip' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('clear' as const) }) },
);

const configArb = fc.record({
  lookahead: fc.integer({ min: 1, max: 3 }),
  maxLength: fc.integer({ min: 1, max: 10 }),
  maxPerRequester: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
});

type Config = { lookahead: number; maxLength: number; maxPerRequester: number | undefined };

const pickFrom = <V>(list: readonly V[], pick: number): V | undefined =>
  list[pick % Math.max(1, list.length)];

/**
 * Runs a random session and checks the invariants after every step. The test keeps its
 * own record of which places are fixed, from the documented rule: a successful
 * `markGenerating(id)` fixes the places of `id` and of every item ahead of it. Each
 * newly fixed item is that requester's round-robin turn.
 */
function runSession(config: Config, ops: readonly Op[]): void {
  let clock = 0;
  const terminal = new Map<string, ItemState>();
  const started = new Set<string>();
  const queue = new SpeechQueue<number>({
    now: () => clock,
    lookahead: config.lookahead,
    maxLength: config.maxLength,
    ...(config.maxPerRequester === undefined ? {} : { maxPerRequester: config.maxPerRequester }),
    onTransition: ({ item, from, event }) => {
      expect(canTransition(from, event)).toBe(true);
      expect(terminal.has(item.id)).toBe(false); // nothing leaves a terminal state
      if (event === 'startPlaying') {
        expect(started.has(item.id)).toBe(false); // never played twice
        started.add(item.id);
      }
      if (isTerminal(item.state)) terminal.set(item.id, item.state);
    },
  });

  const enqueued: string[] = [];
  const requesterOf = new Map<string, string>();
  const fixed = new Set<string>();
  const turnIndex = new Map<string, number>();
  let turns = 0;
  let lastPlayedTurn = -1;
  // owes.get(X) = requesters that were waiting when X had its last turn and have not had
  // one since (nor stopped waiting). X may not have another turn while this is non-empty.
  const owes = new Map<string, Set<string>>();

  const ids = () => queue.order().map(({ item }) => item.id);
  const waitingCount = (order: readonly string[]) => {
    const counts = new Map<string, number>();
    for (const id of order) {
      if (fixed.has(id)) continue;
      const requester = requesterOf.get(id) ?? '';
      counts.set(requester, (counts.get(requester) ?? 0) + 1);
    }
    return counts;
  };

  const takeTurns = (newlyFixed: readonly string[], waitingBefore: Map<string, number>) => {
    const waiting = new Map(waitingBefore);
    for (const id of newlyFixed) {
      const requester = requesterOf.get(id) ?? '';
      expect([...(owes.get(requester) ?? [])]).toEqual([]); // round-robin fairness
      for (const set of owes.values()) set.delete(requester);
      owes.set(
        requester,
        new Set(REQUESTERS.filter((other) => other !== requester && (waiting.get(other) ?? 0) > 0)),
      );
      waiting.set(requester, (waiting.get(requester) ?? 0) - 1);
      fixed.add(id);
      turnIndex.set(id, turns++);
    }
  };

  const checkInvariants = () => {
    const order = queue.order();
    const orderIds = order.map(({ item }) => item.id);
    expect(order.map(({ position }) => position)).toEqual(orderIds.map((_, index) => index + 1));
    expect(queue.length).toBe(order.length);
    expect(queue.length).toBeLessThanOrEqual(config.maxLength);
    // Lazy window: started items are few and at the front.
    const startedAhead = order.filter(({ item }) => item.state !== 'queued');
    expect(startedAhead.length).toBeLessThanOrEqual(config.lookahead);
    for (const { item, position } of startedAhead) {
      expect(position).toBeLessThanOrEqual(config.lookahead);
      expect(fixed.has(item.id)).toBe(true);
    }
    const toGenerate = queue.toGenerate().map((item) => item.id);
    expect(toGenerate).toEqual(
      order
        .filter(({ item, position }) => position <= config.lookahead && item.state === 'queued')
        .map(({ item }) => item.id),
    );
    // Fixed places come first, in the order their turns were taken.
    for (const id of fixed) if (!orderIds.includes(id)) fixed.delete(id);
    const head = orderIds.slice(0, fixed.size);
    expect(new Set(head)).toEqual(fixed);
    const headTurns = head.map((id) => turnIndex.get(id) ?? -1);
    expect(headTurns).toEqual([...headTurns].sort((a, b) => a - b));
    // FIFO within a requester, over the whole order.
    for (const requester of REQUESTERS) {
      const mine = orderIds.filter((id) => requesterOf.get(id) === requester);
      const seq = mine.map((id) => enqueued.indexOf(id));
      expect(seq).toEqual([...seq].sort((a, b) => a - b));
      if (config.maxPerRequester !== undefined)
        expect(mine.length).toBeLessThanOrEqual(config.maxPerRequester);
    }
    // Waiting items are in rounds: between two consecutive items of X, every requester
    // with a later item also has one.
    const rest = orderIds.slice(fixed.size).map((id) => requesterOf.get(id) ?? '');
    for (let i = 0; i < rest.length; i += 1) {
      const j = rest.indexOf(rest[i] ?? '', i + 1);
      if (j < 0) continue;
      const between = new Set(rest.slice(i + 1, j));
      for (const later of new Set(rest.slice(j + 1))) {
        if (later !== rest[i]) expect(between.has(later)).toBe(true);
      }
    }
    // Requesters with nothing waiting are owed nothing.
    const waiting = waitingCount(orderIds);
    for (const requester of REQUESTERS) {
      if ((waiting.get(requester) ?? 0) === 0)
        for (const set of owes.values()) set.delete(requester);
    }
    const current = queue.current();
    if (current) expect(current.state).toBe('playing');
  };

  const generatingIds = () =>
    queue
      .order()
      .filter(({ item }) => item.state === 'generating')
      .map(({ item }) => item.id);

  for (const op of ops) {
    clock += 1;
    const before = ids();
    switch (op.kind) {
      case 'enqueue': {
        const waitingBefore = waitingCount(before);
        const result = queue.enqueue({ requesterId: op.requester, payload: clock });
        if (before.length >= config.maxLength)
          expect(result).toMatchObject({ ok: false, reason: 'full' });
        if (!result.ok) break;
        enqueued.push(result.item.id);
        requesterOf.set(result.item.id, op.requester);
        const after = ids();
        // Stable: existing items keep their relative order.
        expect(after.filter((id) => id !== result.item.id)).toEqual(before);
        expect(after[result.position - 1]).toBe(result.item.id);
        // A requester with nothing waiting joins behind the next turn of everyone waiting.
        if ((waitingBefore.get(op.requester) ?? 0) === 0) {
          for (const [other, count] of waitingBefore) {
            if (count === 0 || other === op.requester) continue;
            const firstOfOther = after.findIndex(
              (id) => !fixed.has(id) && requesterOf.get(id) === other,
            );
            expect(firstOfOther + 1).toBeLessThan(result.position);
          }
        }
        break;
      }
      case 'startGeneration': {
        const id = pickFrom(queue.toGenerate(), op.pick)?.id;
        if (id === undefined) break;
        const waitingBefore = waitingCount(before);
        expect(queue.markGenerating(id).ok).toBe(true);
        takeTurns(
          before.slice(0, before.indexOf(id) + 1).filter((other) => !fixed.has(other)),
          waitingBefore,
        );
        break;
      }
      case 'generated':
      case 'generationFailed': {
        const id = pickFrom(generatingIds(), op.pick);
        if (id === undefined) break;
        const result = op.kind === 'generated' ? queue.markReady(id) : queue.markFailed(id, 'boom');
        expect(result.ok).toBe(true);
        break;
      }
      case 'staleReport': {
        const id = pickFrom(enqueued, op.pick);
        if (id === undefined) break;
        const state = queue.get(id)?.state;
        if (op.report === 'markGenerating') {
          const result = queue.markGenerating(id);
          if (result.ok)
            takeTurns(
              before.slice(0, before.indexOf(id) + 1).filter((other) => !fixed.has(other)),
              waitingCount(before),
            );
          expect(result.ok).toBe(
            queue.get(id) !== undefined &&
              state === 'queued' &&
              before.indexOf(id) < config.lookahead,
          );
        } else {
          const result = op.report === 'markReady' ? queue.markReady(id) : queue.finish(id);
          expect(result.ok).toBe(
            op.report === 'markReady' ? state === 'generating' : state === 'playing',
          );
        }
        break;
      }
      case 'remove': {
        const id = pickFrom(enqueued, op.pick);
        if (id === undefined) break;
        const state = queue.get(id)?.state;
        const affected = queue.remove(id);
        expect(affected.map(({ previous }) => previous)).toEqual(state ? [state] : []);
        // The requester keeps their place in the rotation, so their later items may move
        // up into the cancelled item's turn; everyone else's items keep their order.
        const requester = requesterOf.get(id);
        const others = (list: readonly string[]) =>
          list.filter((other) => requesterOf.get(other) !== requester);
        expect(others(ids())).toEqual(others(before));
        expect(ids().slice(0, fixed.size - (fixed.has(id) ? 1 : 0))).toEqual(
          before.slice(0, fixed.size).filter((other) => other !== id),
        );
        break;
      }
      case 'next': {
        const item = queue.next();
        if (item === undefined) break;
        expect(item.id).toBe(before[0]);
        const turn = turnIndex.get(item.id) ?? -1;
        expect(turn).toBeGreaterThan(lastPlayedTurn); // plays follow the turns
        lastPlayedTurn = turn;
        break;
      }
      case 'finish':
      case 'playbackFailed':
      case 'skip': {
        const current = queue.current();
        if (op.kind === 'skip') {
          const waitingBefore = waitingCount(before);
          const skipped = queue.skip().map(({ item }) => item.id);
          if (current) {
            expect(skipped).toEqual([current.id]);
            expect(ids()).toEqual(before); // skip never touches pending items
          } else {
            // Nothing plays: position 1 is up. Skipping it uses its requester's turn.
            expect(skipped).toEqual(before.slice(0, 1));
            expect(ids()).toEqual(before.slice(1));
            takeTurns(
              skipped.filter((id) => !fixed.has(id)),
              waitingBefore,
            );
          }
        } else if (current) {
          const result =
            op.kind === 'finish' ? queue.finish(current.id) : queue.markFailed(current.id, 'x');
          expect(result.ok).toBe(true);
        }
        break;
      }
      case 'clear': {
        const current = queue.current();
        const cleared = queue.clear().map(({ item }) => item.id);
        expect(cleared).toEqual([...(current ? [current.id] : []), ...before]);
        break;
      }
    }
    checkInvariants();
  }

  queue.clear();
  expect(queue.length).toBe(0);
  // Every item ends in exactly one terminal state (the listener refuses a second one).
  expect([...terminal.keys()].sort()).toEqual([...enqueued].sort());
}

describe('SpeechQueue properties', () => {
  test('random sessions keep the window, fairness, limits and lifecycle invariants', () => {
    fc.assert(
      fc.property(
        configArb,
        fc.array(opArb, { minLength: 10, maxLength: 120, size: 'max' }),
        (config, ops) => runSession(config, ops),
      ),
      { numRuns: 400 },
    );
  });
});
