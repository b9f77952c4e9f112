import { expect, test } from 'vitest';
import { Reservations } from '../../src/speaking/index.ts';

test('reservations count per server and member, and release once by request id', () => {
  const held = new Reservations();
  held.hold('g1', 'a', 'r1');
  held.hold('g1', 'a', 'r2');
  held.hold('g2', 'a', 'r3');
  expect([held.count('g1', 'a'), held.count('g2', 'a'), held.count('g1', 'b')]).toEqual([2, 1, 0]);
  held.release('r1');
  held.release('r1');
  held.release('unknown');
  expect(held.count('g1', 'a')).toBe(1);
  held.release('r2');
  held.release('r3');
  expect([held.count('g1', 'a'), held.size]).toEqual([0, 0]);
});
