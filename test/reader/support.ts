/** Shared test data of the reader's text tests: chat text that tempts every cleanup rule, and phrases per language. */
import fc from 'fast-check';
import { expect } from 'vitest';
import { LANGUAGES, type Language, translatorFor } from '../../src/i18n/index.ts';
import { type ReaderPhrases, readerPhrases } from '../../src/reader/phrases.ts';

/** The reader's phrases in every language the bot speaks. */
export const PHRASES: Readonly<Record<Language, ReaderPhrases>> = Object.fromEntries(
  LANGUAGES.map((language) => [language, readerPhrases(translatorFor(language))]),
) as Record<Language, ReaderPhrases>;

/** Fragments that tempt each rule, mixed with arbitrary text. */
export const fragment = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.constantFrom(
    '<@123>',
    '<@!45>',
    '<@&6>',
    '<#7>',
    '<:x_y:89>',
    '<a:z:1>',
    '<t:1700000000:R>',
    'https://a.example/p?q=1',
    'http://',
    'www.x.io',
    'ht',
    'tps://',
    '://',
    '**',
    '__',
    '~~',
    '||',
    '`',
    '```',
    '> ',
    '# ',
    '\n',
    '<',
    '>',
    '@',
    '🔥',
    '👍🏽',
    'w',
    'ww.',
    '\\',
    '。',
    '{{name}}',
    '$&',
    '\u200b',
    '\u200d',
    '\u2066',
  ),
);

/** Raw chat message text built from {@link fragment}s. */
export const messageText = fc.array(fragment, { maxLength: 30 }).map((parts) => parts.join(''));

/** Asserts spoken text has no mention syntax, raw URL, markdown marker, line break or invisible character. */
export function expectSpeakable(text: string): void {
  expect(text).not.toMatch(/\p{Cf}/u);
  expect(text).not.toMatch(/[<>]/);
  expect(text).not.toMatch(/[a-z][a-z0-9+.-]*:\/\/|\bwww\./i);
  expect(text).not.toMatch(/[*_~`|\\]/);
  expect(text).not.toMatch(/^[#>-]|\n/);
}
