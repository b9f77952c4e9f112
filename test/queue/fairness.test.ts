import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { FairOrder } from '../../src/queue/index.ts';

interface Item {
  readonly id: string;
  readonly requesterId: string;
}

// 'A1 A2 B1' → items with id 'A1' by requester 'A'.
const items = (spec: string): Item[] =>
  spec
    .split(' ')
    .filter(Boolean)
    .map((id) => ({ id, requesterId: id.slice(0, 1) }));

const ids = (list: readonly Item[]) => list.map((item) => item.id).join(' ');

function build(spec: string): FairOrder<Item> {
  const order = new FairOrder<Item>();
  for (const item of items(spec)) order.add(item);
  return order;
}

describe('FairOrder', () => {
  test.each([
    ['', ''],
    ['A1', 'A1'],
    ['A1 A2 A3', 'A1 A2 A3'],
    ['A1 A2 A3 B1 C1', 'A1 B1 C1 A2 A3'],
    ['A1 B1 A2 B2', 'A1 B1 A2 B2'],
    ['B1 A1 A2 A3 C1 C2', 'B1 A1 C1 A2 C2 A3'],
    ['A1 A2 B1 B2 B3 C1', 'A1 B1 C1 A2 B2 B3'],
  ])('enqueued %j plays as %j', (spec, expected) => {
    const order = build(spec);
    expect(ids(order.order())).toBe(expected);
    const taken: Item[] = [];
    for (let item = order.takeTurn(); item; item = order.takeTurn()) taken.push(item);
    expect(ids(taken)).toBe(expected);
    expect(order.size).toBe(0);
  });

  test.each([
    // [enqueued first, turns taken (playing or played), enqueued after, order of what is left]
    // Bob queues three, carol one a moment later: carol plays second, whether bob's first
    // item still generates (no turn taken yet) or already plays.
    ['B1 B2 B3', 0, 'C1', 'B1 C1 B2 B3'],
    ['B1 B2 B3', 1, 'C1', 'C1 B2 B3'],
    ['B1 B2 B3', 2, 'C1', 'C1 B3'],
    // A newcomer joins the round being played: after those not served in it yet.
    ['A1 A2 B1 B2', 1, 'C1', 'B1 C1 A2 B2'],
    ['A1 A2 B1 B2', 2, 'C1', 'C1 A2 B2'],
    // A was served in this round and had nothing left: A rejoins in the next round.
    ['A1 B1 B2 C1', 1, 'A2', 'B1 C1 A2 B2'],
    // A still waiting: the new item goes to A's lane.
    ['A1 A2 B1 B2', 1, 'A3', 'B1 A2 B2 A3'],
    ['A1 B1', 0, 'C1 C2 A2', 'A1 B1 C1 A2 C2'],
  ])('%j, %d turns, then %j → %j', (first, turns, later, expected) => {
    const order = build(first);
    for (let turn = 0; turn < turns; turn += 1) order.takeTurn();
    for (const item of items(later)) order.add(item);
    expect(ids(order.order())).toBe(expected);
    expect(order.head()?.id).toBe(expected.split(' ')[0]);
  });

  test('a requester keeps their place when they withdraw one of several items', () => {
    const order = build('A1 B1 B2 C1');
    const [, b1] = order.order();
    expect(b1 && order.remove(b1)).toBe(true);
    expect(ids(order.order())).toBe('A1 B2 C1');
  });

  test('removing an item that is not pending changes nothing', () => {
    const order = build('A1 B1');
    expect(order.remove({ id: 'A9', requesterId: 'A' })).toBe(false);
    expect(order.remove({ id: 'Z1', requesterId: 'Z' })).toBe(false);
    expect(ids(order.order())).toBe('A1 B1');
    expect([order.size, order.countOf('A'), order.countOf('Z')]).toEqual([2, 1, 0]);
  });

  test('drain empties in turn order', () => {
    const order = build('A1 A2 B1');
    expect(ids(order.drain())).toBe('A1 B1 A2');
    expect(order.size).toBe(0);
    expect(order.takeTurn()).toBeUndefined();
  });

  test('forget starts a fresh rotation once idle, and only then', () => {
    const order = build('A1 A2');
    order.takeTurn();
    order.forget(); // A2 still pending: ignored
    order.takeTurn();
    order.add({ id: 'A3', requesterId: 'A' });
    order.add({ id: 'B1', requesterId: 'B' });
    expect(ids(order.order())).toBe('B1 A3'); // A was served in this round
    const idle = build('A1 A2');
    idle.takeTurn();
    idle.takeTurn();
    idle.forget();
    idle.add({ id: 'A3', requesterId: 'A' });
    idle.add({ id: 'B1', requesterId: 'B' });
    expect(ids(idle.order())).toBe('A3 B1');
  });
});

type Op = { kind: 'add'; requester: string } | { kind: 'turn' } | { kind: 'remove'; pick: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('add' as const),
      requester: fc.constantFrom('A', 'B', 'C', 'D', 'E'),
    }),
  },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('turn' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() }) },
);

describe('FairOrder properties', () => {
  test('order predicts turns, keeps each requester FIFO, and nobody gets two turns while another waits', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 80 }), (ops) => {
        const order = new FairOrder<Item>();
        const added: Item[] = [];
        // For each waiting requester: turns every other requester took since they last had one.
        const since = new Map<string, Map<string, number>>();
        let n = 0;
        for (const op of ops) {
          const before = order.order();
          if (op.kind === 'add') {
            const item = { id: `${op.requester}${++n}`, requesterId: op.requester };
            if (order.countOf(op.requester) === 0) since.set(op.requester, new Map());
            order.add(item);
            added.push(item);
            // The others keep their relative order.
            expect(ids(order.order().filter((i) => i !== item))).toBe(ids(before));
          } else if (op.kind === 'turn') {
            const taken = order.takeTurn();
            expect(taken).toBe(before[0]);
            expect(ids(order.order())).toBe(ids(before.slice(1)));
            if (taken === undefined) continue;
            for (const [waiting, counts] of since) {
              if (waiting === taken.requesterId) continue;
              const turns = (counts.get(taken.requesterId) ?? 0) + 1;
              expect(
                turns,
                `${taken.requesterId} twice while ${waiting} waits`,
              ).toBeLessThanOrEqual(1);
              counts.set(taken.requesterId, turns);
            }
            since.set(taken.requesterId, new Map());
          } else {
            const victim = before[op.pick % Math.max(1, before.length)];
            if (victim !== undefined) expect(order.remove(victim)).toBe(true);
          }
          for (const requester of [...since.keys()])
            if (order.countOf(requester) === 0) since.delete(requester);
          const now = order.order();
          expect(now.length).toBe(order.size);
          expect(order.head()).toBe(now[0]);
          for (const requester of 'ABCDE') {
            const mine = now.filter((item) => item.requesterId === requester);
            expect(mine.length).toBe(order.countOf(requester));
            const fifo = added.filter((item) => mine.includes(item));
            expect(ids(mine)).toBe(ids(fifo));
          }
        }
      }),
      { numRuns: 500 },
    );
  });
});
