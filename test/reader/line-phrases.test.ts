/** The glue of a line read in its own language (v3): its translation, else no words at all. */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { LANGUAGES, localeOfLanguage, translatorFor } from '../../src/i18n/index.ts';
import { type ChatLine, composeBatch } from '../../src/reader/compose.ts';
import { crowdPhrases } from '../../src/reader/crowd-phrases.ts';
import { linePhrases } from '../../src/reader/line-phrases.ts';
import { chorusLines } from '../../src/reader/repeats.ts';
import { PHRASES } from './support.ts';

const server = (language: (typeof LANGUAGES)[number]) => ({
  phrases: PHRASES[language],
  crowd: crowdPhrases(translatorFor(language)),
});

const GERMAN = server('de');

describe('localeOfLanguage', () => {
  test.each([
    ['en', 'en'],
    ['de', 'de'],
    ['es', 'es-ES'],
    ['fr', 'fr'],
    ['ja', 'ja'],
    ['JA', 'ja'],
    ['it', undefined],
    ['pt', undefined],
    ['zh', undefined],
    ['', undefined],
  ])('%j → %j', (code, locale) => {
    expect(localeOfLanguage(code)).toBe(locale);
  });
});

describe('linePhrases', () => {
  test('no language (v2) or the server’s own: the server’s phrases, unchanged', () => {
    expect(linePhrases(GERMAN, undefined)).toBe(GERMAN);
    expect(linePhrases(GERMAN, 'de')).toBe(GERMAN);
  });

  test.each([
    ['en', 'Anna said hello.', '7 people said LUL.', 'beep', 'Anna cheered 5 bits: hi'],
    ['es', 'Anna dijo: hello.', '7 personas dijeron: LUL.', 'pip', 'Anna animó con 5 bits: hi'],
    ['fr', 'Anna a dit : hello.', '7 personnes ont dit : LUL.', 'bip', 'Anna a offert 5 bits : hi'],
    [
      'ja',
      'Annaさん：hello.',
      '7人が同じことを言いました：LUL.',
      'ピー',
      'Annaが5ビッツで応援しました：hi',
    ],
    // No translation: the name and the text, with no German word for an Italian voice to read.
    ['it', 'Anna: hello.', 'LUL.', '…', 'Anna 5: hi'],
  ])('a line in %s on a German server', (language, said, crowd, bleep, cheer) => {
    const { phrases, crowd: many } = linePhrases(GERMAN, language);
    expect(phrases.said('Anna', 'hello.')).toBe(said);
    expect(many.saidByMany(7, 'LUL.')).toBe(crowd);
    expect(many.bleep).toBe(bleep);
    const separator = language === 'ja' ? '' : ' ';
    expect(`Anna${separator}${phrases.cheered(5, 'hi')}`).toBe(cheer);
  });

  // The composed text's letters are the names' and the lines' only.
  const LETTER = /\p{L}/u;
  const lineOf = (authorId: string, text: string, at: number): ChatLine => ({
    authorId,
    authorName: authorId === 'a' ? 'Anna' : 'Bo',
    text,
    kind: 'said',
    at,
  });

  test('property: a language without a translation gets no word of glue, any server, any batch, compact or not', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...LANGUAGES),
        fc.constantFrom('it', 'ko', 'pt', 'zh', 'hi'),
        fc.array(
          fc.record({
            authorId: fc.constantFrom('a', 'b'),
            text: fc.constantFrom('ciao', 'LUL', 'tutto bene', 'grazie mille a tutti'),
            at: fc.integer({ min: 0, max: 200_000 }),
          }),
          { minLength: 1, maxLength: 6 },
        ),
        fc.boolean(),
        (serverLanguage, language, messages, compact) => {
          const { phrases, crowd } = linePhrases(server(serverLanguage), language);
          const batch = messages.map((m) => lineOf(m.authorId, m.text, m.at));
          const lines = chorusLines(batch, true, phrases, crowd);
          const { text } = composeBatch(lines, {
            saidPrefix: true,
            compact,
            minLength: 30,
            last: undefined,
            phrases,
          });
          expect(text.length).toBeGreaterThanOrEqual(30);
          let rest = text;
          for (const word of ['Anna', 'Bo', ...messages.map((m) => m.text)])
            rest = rest.split(word).join('');
          expect(rest).not.toMatch(LETTER);
        },
      ),
    );
  });

  test.each(
    LANGUAGES.flatMap((serverLanguage) =>
      ['en', 'de', 'es', 'fr', 'ja', 'it'].map((language) => [serverLanguage, language] as const),
    ),
  )(
    '%s server, a line in %s: the shortest line still reaches the minimum',
    (serverLanguage, language) => {
      const { phrases } = linePhrases(server(serverLanguage), language);
      for (const name of ['', 'A']) {
        for (const compact of [false, true]) {
          const lines = [{ ...lineOf('a', 'x', 0), authorName: name }];
          const options = { saidPrefix: true, compact, minLength: 30, last: undefined, phrases };
          expect(composeBatch(lines, options).text.length).toBeGreaterThanOrEqual(30);
        }
      }
    },
  );
});
