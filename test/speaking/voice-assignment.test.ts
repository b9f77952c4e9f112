/** Automatic voices, pure: stable per chatter, never shared among the last few active chatters. */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  type AssignmentTable,
  assignableVoices,
  assignVoice,
  chatterHash,
} from '../../src/speaking/index.ts';
import type { Voice } from '../../src/tts/index.ts';

const VOICES = ['v0', 'v1', 'v2', 'v3', 'v4', 'v5'];

/** Runs chatters through `assignVoice` in order; the voice each got, and the final table. */
function run(chatters: readonly string[], voices = VOICES, limit?: number) {
  let table: AssignmentTable = [];
  const given: string[] = [];
  for (const chatter of chatters) {
    const result = assignVoice(table, chatter, voices, limit);
    if (result === undefined) throw new Error('no voice');
    table = result.table;
    given.push(result.voiceId);
  }
  return { given, table };
}

describe('assignVoice', () => {
  test('a chatter keeps their voice message after message', () => {
    const { given } = run(['ann', 'bob', 'ann', 'cid', 'ann', 'bob']);
    expect(given[2]).toBe(given[0]);
    expect(given[4]).toBe(given[0]);
    expect(given[5]).toBe(given[1]);
  });

  test('the first voice comes from the chatter’s hash over the sorted list (the same on every shard)', () => {
    const { given } = run(['ann']);
    expect(given[0]).toBe(VOICES[chatterHash('ann') % VOICES.length]);
  });

  test.each([
    ['more chatters than voices: the last six differ', 10, 6],
    ['a small table remembers fewer', 10, 3],
  ])('%s', (_, count, limit) => {
    const chatters = Array.from({ length: count }, (_, i) => `chatter-${i}`);
    const { table } = run(chatters, VOICES, limit);
    expect(table).toHaveLength(Math.min(limit, VOICES.length));
    expect(new Set(table.map((entry) => entry.voiceId)).size).toBe(table.length);
  });

  test('a voice the key no longer has is replaced', () => {
    const table: AssignmentTable = [{ chatter: 'ann', voiceId: 'gone' }];
    expect(assignVoice(table, 'ann', VOICES)?.voiceId).not.toBe('gone');
  });

  test('no voices: nothing to give', () => {
    expect(assignVoice([], 'ann', [])).toBeUndefined();
  });

  test('property: the last N distinct active chatters never share a voice while N ≤ the voices', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 12 }), { minLength: 1, maxLength: 80 }),
        fc.integer({ min: 1, max: 8 }),
        (sequence, voiceCount) => {
          const voices = VOICES.concat(['v6', 'v7']).slice(0, voiceCount);
          let table: AssignmentTable = [];
          const current = new Map<string, string>();
          const order: string[] = [];
          for (const n of sequence) {
            const chatter = `c${n}`;
            const result = assignVoice(table, chatter, voices);
            if (result === undefined) return false;
            table = result.table;
            current.set(chatter, result.voiceId);
            const at = order.indexOf(chatter);
            if (at !== -1) order.splice(at, 1);
            order.unshift(chatter);
            const recent = order.slice(0, voices.length).map((c) => current.get(c));
            if (new Set(recent).size !== recent.length) return false;
          }
          return true;
        },
      ),
    );
  });
});

describe('assignableVoices', () => {
  const voice = (voiceId: string, free: boolean, accent = 'American'): Voice => ({
    voiceId,
    name: voiceId,
    gender: 'Female',
    accent,
    free,
    description: '',
  });

  test('free preset voices, sorted; never a cloned one; all presets when none is free', () => {
    expect(assignableVoices([voice('b', true), voice('a', true), voice('c', false)])).toEqual([
      'a',
      'b',
    ]);
    expect(assignableVoices([voice('c', false), voice('x', false, 'Custom')])).toEqual(['c']);
  });
});
