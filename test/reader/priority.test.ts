import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { hasPriority, priorityFirst } from '../../src/reader/priority.ts';

describe('hasPriority', () => {
  test.each([
    ['the priority role', { roleIds: ['r1', 'prio'] }, true],
    ['another role', { roleIds: ['r1'] }, false],
    ['no role', { roleIds: [] }, false],
    ['the Twitch broadcaster', { roleIds: [], badges: ['broadcaster'] }, true],
    ['a Twitch moderator', { roleIds: [], badges: ['subscriber', 'moderator'] }, true],
    ['a Twitch VIP', { roleIds: [], badges: ['vip'] }, true],
    ['a Twitch subscriber', { roleIds: [], badges: ['subscriber'] }, false],
  ])('%s → %s', (_, chatter, expected) => {
    expect(hasPriority(chatter, ['prio'])).toBe(expected);
  });

  test('no priority role configured: only badges count', () => {
    expect(hasPriority({ roleIds: ['prio'] }, [])).toBe(false);
  });
});

describe('priorityFirst', () => {
  test('priority messages go to the front, each part in arrival order', () => {
    const messages = ['a1', 'M1', 'b1', 'M2', 'a2'];
    expect(priorityFirst(messages, (m) => m.startsWith('M'))).toEqual([
      'M1',
      'M2',
      'a1',
      'b1',
      'a2',
    ]);
  });

  test('property: a stable partition of the same messages', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(), fc.boolean())), (messages) => {
        const out = priorityFirst(messages, ([, p]) => p);
        expect(out).toEqual([...messages.filter(([, p]) => p), ...messages.filter(([, p]) => !p)]);
      }),
    );
  });
});
