import { describe, expect, test } from 'vitest';
import { RoundRobin } from '../../src/queue/index.ts';

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

function build(spec: string): RoundRobin<Item> {
  const rr = new RoundRobin<Item>();
  for (const item of items(spec)) rr.add(item);
  return rr;
}

describe('RoundRobin order', () => {
  test.each([
    ['', ''],
    ['A1', 'A1'],
    ['A1 A2 A3', 'A1 A2 A3'],
    ['A1 A2 A3 B1 C1', 'A1 B1 C1 A2 A3'],
    ['A1 B1 A2 B2', 'A1 B1 A2 B2'],
    ['B1 A1 A2 A3 C1 C2', 'B1 A1 C1 A2 C2 A3'],
    ['A1 A2 B1 B2 B3 C1', 'A1 B1 C1 A2 B2 B3'],
  ])('enqueued %j plays as %j', (spec, expected) => {
    const rr = build(spec);
    expect(ids(rr.order())).toBe(expected);
    const taken: Item[] = [];
    for (let item = rr.take(); item; item = rr.take()) taken.push(item);
    expect(ids(taken)).toBe(expected);
    expect(rr.size).toBe(0);
  });
});

describe('joining later', () => {
  test.each([
    // [enqueued first, turns taken, enqueued after, order of what is left]
    ['A1 A2 B1 B2', 1, 'C1', 'B1 A2 C1 B2'],
    ['A1 A2 B1 B2', 2, 'C1', 'A2 B2 C1'],
    // A had nothing left waiting, so A rejoins at the back, behind B and C.
    ['A1 B1 B2 C1', 1, 'A2', 'B1 C1 A2 B2'],
    // A still waiting: the new item goes to A's lane, A keeps its place in the rotation.
    ['A1 A2 B1 B2', 1, 'A3', 'B1 A2 B2 A3'],
    ['A1 B1', 0, 'C1 C2 A2', 'A1 B1 C1 A2 C2'],
  ])('%j, %d turns, then %j → %j', (first, turns, later, expected) => {
    const rr = build(first);
    for (let turn = 0; turn < turns; turn += 1) rr.take();
    for (const item of items(later)) rr.add(item);
    expect(ids(rr.order())).toBe(expected);
  });
});

describe('remove', () => {
  test('a requester keeps their place when they withdraw one of several items', () => {
    const rr = build('A1 B1 B2 C1');
    const [, b1] = rr.order();
    expect(b1 && rr.remove(b1)).toBe(true);
    expect(ids(rr.order())).toBe('A1 B2 C1');
  });

  test('removing the last waiting item of a requester drops them from the rotation', () => {
    const rr = build('A1 B1 C1');
    const a1 = rr.order()[0];
    expect(a1 && rr.remove(a1)).toBe(true);
    rr.add({ id: 'A2', requesterId: 'A' });
    expect(ids(rr.order())).toBe('B1 C1 A2');
    expect(rr.countOf('A')).toBe(1);
    expect(rr.countOf('B')).toBe(1);
    expect(rr.countOf('Z')).toBe(0);
  });

  test('removing an item that is not waiting changes nothing', () => {
    const rr = build('A1 B1');
    expect(rr.remove({ id: 'A9', requesterId: 'A' })).toBe(false);
    expect(rr.remove({ id: 'Z1', requesterId: 'Z' })).toBe(false);
    expect(ids(rr.order())).toBe('A1 B1');
    expect(rr.size).toBe(2);
  });

  test('drain empties in turn order', () => {
    const rr = build('A1 A2 B1');
    expect(ids(rr.drain())).toBe('A1 B1 A2');
    expect(rr.size).toBe(0);
    expect(rr.take()).toBeUndefined();
  });
});
