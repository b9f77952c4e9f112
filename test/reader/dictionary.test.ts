import { describe, expect, test } from 'vitest';
import { applyDictionary, withEntry, withoutWord } from '../../src/reader/dictionary.ts';

const dictionary = [
  { word: 'lol', replacement: 'laughing out loud' },
  { word: 'gg', replacement: 'good game' },
  { word: 'o7', replacement: 'salute' },
  { word: 'gg wp', replacement: 'good game, well played' },
  { word: 'c++', replacement: 'C plus plus' },
];

describe('applyDictionary', () => {
  test.each([
    ['lol', 'laughing out loud'],
    ['LOL that was funny', 'laughing out loud that was funny'],
    ['Lol, lOl.', 'laughing out loud, laughing out loud.'],
    ['lollipop and trolol stay', 'lollipop and trolol stay'],
    ['gg wp everyone', 'good game, well played everyone'],
    ['gg', 'good game'],
    ['o7 commander', 'salute commander'],
    ['I code c++ daily', 'I code C plus plus daily'],
    ['égg stays égg', 'égg stays égg'],
    ['nothing here', 'nothing here'],
  ])('%j → %j', (text, spoken) => {
    expect(applyDictionary(text, dictionary)).toBe(spoken);
  });

  test('a replacement is not replaced again', () => {
    expect(
      applyDictionary('a', [
        { word: 'a', replacement: 'b' },
        { word: 'b', replacement: 'c' },
      ]),
    ).toBe('b');
  });
});

describe('editing the dictionary', () => {
  test('adding a word already there (any case) replaces it', () => {
    const entries = withEntry(dictionary, { word: 'LOL', replacement: 'haha' });
    expect(entries.filter((e) => e.word.toLowerCase() === 'lol')).toEqual([
      { word: 'LOL', replacement: 'haha' },
    ]);
    expect(entries).toHaveLength(dictionary.length);
  });

  test('removing is case-insensitive and says whether something was removed', () => {
    expect(withoutWord(dictionary, ' GG ').removed).toBe(true);
    expect(withoutWord(dictionary, 'GG').entries).toHaveLength(dictionary.length - 1);
    expect(withoutWord(dictionary, 'nope')).toEqual({ entries: dictionary, removed: false });
  });
});
