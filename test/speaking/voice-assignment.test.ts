/** Automatic voices, pure: a new chatter's first voice, spread over the pool. */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { assignableVoices, chatterHash, firstVoice } from '../../src/speaking/index.ts';
import type { Voice } from '../../src/tts/index.ts';

const VOICES = ['v0', 'v1', 'v2', 'v3', 'v4', 'v5'];

describe('firstVoice', () => {
  test('with nobody active before, the voice at the chatter’s hash over the sorted list (the same on every shard)', () => {
    expect(firstVoice('ann', VOICES, [])).toBe(VOICES[chatterHash('ann') % VOICES.length]);
  });

  test('no voices: nothing to give', () => {
    expect(firstVoice('ann', [], [])).toBeUndefined();
  });

  test('property: never a voice of the last pool-size − 1 active chatters; else one of the least used', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.integer({ min: 0, max: 7 }), { maxLength: 20 }),
        (chatter, count, picks) => {
          const voices = VOICES.concat(['v6', 'v7']).slice(0, count);
          const recent = picks.map((n) => voices[n % count] ?? 'v0');
          const voice = firstVoice(chatter, voices, recent);
          const counted = recent.slice(0, count - 1);
          const uses = (v: string) => counted.filter((r) => r === v).length;
          if (voice === undefined) return false;
          return voices.every((v) => uses(voice) <= uses(v));
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
