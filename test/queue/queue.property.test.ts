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
 * Runs a random session and checks the invariants after every step. A turn is an item
 * starting to play, or the head being skipped while nothing plays; turns follow the fair
 * order whatever the items' generation states.
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
  // For each waiting requester: the turns each other requester took since they last had one.
  const since = new Map<string, Map<string, number>>();

  const ids = () => queue.order().map(({ item }) => item.id);
  const turnTaken = (id: string) => {
    const requester = requesterOf.get(id) ?? '';
    for (const [waiting, counts] of since) {
      if (waiting === requester) continue;
      const turns = (counts.get(requester) ?? 0) + 1;
      expect(turns, `${requester} had two turns while ${waiting} waited`).toBe(1);
      counts.set(requester, turns);
    }
    since.set(requester, new Map());
  };

  const checkInvariants = () => {
    const order = queue.order();
    const orderIds = order.map(({ item }) => item.id);
    // Plain checks gathered into one expect: this runs tens of thousands of times.
    const problems: string[] = [];
    if (order.some(({ position }, index) => position !== index + 1)) problems.push('positions');
    if (queue.length !== order.length) problems.push('length');
    if (queue.length > config.maxLength) problems.push('over maxLength');
    // Lazy window: only window items start; started ones may be pushed back by newcomers.
    const toGenerate = queue
      .toGenerate()
      .map((item) => item.id)
      .join(' ');
    const window = order
      .filter(({ item, position }) => position <= config.lookahead && item.state === 'queued')
      .map(({ item }) => item.id)
      .join(' ');
    if (toGenerate !== window) problems.push(`toGenerate ${toGenerate} != ${window}`);
    for (const requester of REQUESTERS) {
      const mine = orderIds.filter((id) => requesterOf.get(id) === requester);
      if (queue.pendingOf(requester) !== mine.length) problems.push(`${requester}: pendingOf`);
      // FIFO within a requester, over the whole order.
      const seq = mine.map((id) => enqueued.indexOf(id));
      if (seq.some((at, i) => i > 0 && at < (seq[i - 1] ?? 0))) problems.push(`${requester}: FIFO`);
      if (config.maxPerRequester !== undefined && mine.length > config.maxPerRequester)
        problems.push(`${requester}: over maxPerRequester`);
      if (mine.length === 0) since.delete(requester); // no longer waiting
    }
    expect(problems).toEqual([]);
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
        const result = queue.enqueue({ requesterId: op.requester, payload: clock });
        if (before.length >= config.maxLength)
          expect(result).toMatchObject({ ok: false, reason: 'full' });
        if (!result.ok) break;
        enqueued.push(result.item.id);
        requesterOf.set(result.item.id, op.requester);
        if (!since.has(op.requester)) since.set(op.requester, new Map());
        const after = ids();
        // Stable: existing items keep their relative order.
        expect(after.filter((id) => id !== result.item.id)).toEqual(before);
        expect(after[result.position - 1]).toBe(result.item.id);
        break;
      }
      case 'startGeneration': {
        const id = pickFrom(queue.toGenerate(), op.pick)?.id;
        if (id === undefined) break;
        expect(queue.markGenerating(id).ok).toBe(true);
        expect(ids()).toEqual(before); // generating changes no place
        break;
      }
      case 'generated':
      case 'generationFailed': {
        const id = pickFrom(generatingIds(), op.pick);
        if (id === undefined) break;
        const result = op.kind === 'generated' ? queue.markReady(id) : queue.markFailed(id, 'boom');
        expect(result.ok).toBe(true);
        if (op.kind === 'generated') expect(ids()).toEqual(before); // ready early: same place
        break;
      }
      case 'staleReport': {
        const id = pickFrom(enqueued, op.pick);
        if (id === undefined) break;
        const state = queue.get(id)?.state;
        if (op.report === 'markGenerating') {
          const result = queue.markGenerating(id);
          expect(result.ok).toBe(state === 'queued' && before.indexOf(id) < config.lookahead);
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
        // The requester keeps their place, so their later items may move up into the
        // cancelled item's turn; everyone else's items keep their order.
        const requester = requesterOf.get(id);
        const others = (list: readonly string[]) =>
          list.filter((other) => requesterOf.get(other) !== requester);
        expect(others(ids())).toEqual(others(before));
        break;
      }
      case 'next': {
        const playing = queue.current();
        const head = before[0];
        const headReady = head !== undefined && queue.get(head)?.state === 'ready';
        const item = queue.next();
        // Only the head plays, and only when it is ready: a later ready item waits its turn.
        expect(item?.id).toBe(playing === undefined && headReady ? head : undefined);
        if (item === undefined) break;
        expect(ids()).toEqual(before.slice(1));
        turnTaken(item.id);
        break;
      }
      case 'finish':
      case 'playbackFailed':
      case 'skip': {
        const current = queue.current();
        if (op.kind === 'skip') {
          const skipped = queue.skip().map(({ item }) => item.id);
          if (current) {
            expect(skipped).toEqual([current.id]);
            expect(ids()).toEqual(before); // skip never touches pending items
          } else {
            // Nothing plays: position 1 is up. Skipping it uses its requester's turn.
            expect(skipped).toEqual(before.slice(0, 1));
            expect(ids()).toEqual(before.slice(1));
            for (const id of skipped) turnTaken(id);
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
  test('random sessions keep the window, the fair turns, the limits and the lifecycle invariants', () => {
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
