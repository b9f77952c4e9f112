import { describe, expect, test } from 'vitest';
import {
  filterVoices,
  findVoice,
  traitChoices,
  voiceChoices,
  voiceLabel,
} from '../../src/speech/index.ts';
import type { Voice } from '../../src/tts/index.ts';

const voice = (
  voiceId: string,
  name: string,
  gender: string,
  accent: string,
  free = true,
): Voice => ({ voiceId, name, gender, accent, free, description: '' });
const voices = [
  voice('af_1', 'Lily', 'Female', 'American'),
  voice('bf_2', 'Alice', 'Female', 'British', false),
  voice('am_3', 'Ethan', 'Male', 'American'),
  voice('adv_c', 'My clone', 'Male', 'Custom', false),
];

test.each([
  [voices[0], 'Lily · Female · American'],
  [voices[1], 'Alice · Female · British (premium)'],
  [voices[3], 'My clone · Male · Custom (custom)'],
])('voiceLabel %#', (v, label) => {
  expect(voiceLabel(v as Voice)).toBe(label);
});

test.each([
  ['', ['adv_c', 'bf_2', 'am_3', 'af_1']],
  ['li', ['af_1', 'bf_2']],
  ['british', ['bf_2']],
  ['AM_3', ['am_3']],
  ['zzz', []],
])('voiceChoices(%j)', (typed, ids) => {
  expect(voiceChoices(voices, typed).map((c) => c.value)).toEqual(ids);
});

test('at most 25 choices, names within Discord’s 100 characters', () => {
  const many = Array.from({ length: 40 }, (_, i) =>
    voice(`v${i}`, `Voice ${'x'.repeat(120)} ${i}`, 'Male', 'American'),
  );
  const choices = voiceChoices(many, '');
  expect(choices).toHaveLength(25);
  expect(choices.every((c) => c.name.length <= 100)).toBe(true);
});

test('findVoice is case-insensitive; filterVoices by gender and accent', () => {
  expect(findVoice(voices, 'BF_2')?.name).toBe('Alice');
  expect(findVoice(voices, 'nope')).toBeUndefined();
  expect(filterVoices(voices, { gender: 'female', accent: null }).map((v) => v.voiceId)).toEqual([
    'af_1',
    'bf_2',
  ]);
  expect(filterVoices(voices, { gender: '', accent: 'custom' }).map((v) => v.voiceId)).toEqual([
    'adv_c',
  ]);
});

describe('traitChoices', () => {
  const voice = (gender: string, accent: string) => ({
    voiceId: `${gender}-${accent}`,
    name: 'x',
    gender,
    accent,
    free: true,
    description: '',
  });
  const voices = [
    voice('Female', 'British'),
    voice('female', 'American'),
    voice('Male', 'Custom'),
    voice('', 'Australian'),
  ];

  test.each([
    ['gender', '', ['Female', 'Male']],
    ['gender', 'MA', ['Male', 'Female']],
    ['accent', 'a', ['American', 'Australian']],
    ['accent', 'i', ['American', 'Australian', 'British']],
    ['accent', 'brit', ['British']],
    ['accent', 'nope', []],
  ] as const)('%s typed %j → %j', (trait, typed, values) => {
    expect(traitChoices(voices, trait, typed).map((c) => c.value)).toEqual(values);
  });

  test('at most 25, as Discord takes', () => {
    const many = Array.from({ length: 40 }, (_, n) => voice('Female', `Accent${n}`));
    expect(traitChoices(many, 'accent', '')).toHaveLength(25);
  });
});
