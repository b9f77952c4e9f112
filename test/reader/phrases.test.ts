import { describe, expect, test } from 'vitest';
import { LANGUAGES, translatorFor } from '../../src/i18n/index.ts';
import { ENGLISH_PHRASES, readerPhrases } from '../../src/reader/phrases.ts';
import { PHRASES } from './support.ts';

describe('readerPhrases', () => {
  test.each([
    ['en', 'Bobby said hi.', 'Bobby sent an image', 'a link to example.com', 'a link'],
    ['de', 'Bobby schreibt: hi.', 'Bobby schickt ein Bild', 'ein Link zu example.com', 'ein Link'],
    ['fr', 'Bobby a dit : hi.', 'Bobby a envoyé une image', 'un lien vers example.com', 'un lien'],
    ['es-ES', 'Bobby dijo: hi.', 'Bobby envió una imagen', 'un enlace a example.com', 'un enlace'],
    ['ja', 'Bobbyさん：hi.', 'Bobbyさんが画像1枚を送りました', 'example.comへのリンク', 'リンク'],
  ] as const)(
    '%s: said, sent and links come from its translation file',
    (language, said, sent, linkTo, link) => {
      const phrases = PHRASES[language];
      expect(phrases.language).toBe(language);
      expect(phrases.said('Bobby', 'hi.')).toBe(said);
      expect(phrases.sent('Bobby', phrases.count('image', 1))).toBe(sent);
      expect(phrases.link('example.com')).toBe(linkTo);
      expect(phrases.link(undefined)).toBe(link);
    },
  );

  test.each([
    ['en', ['an audio clip', '3 audio clips'], 'a, b, and c'],
    ['de', ['eine Audiodatei', '3 Audiodateien'], 'a, b und c'],
    ['fr', ['un extrait audio', '3 extraits audio'], 'a, b et c'],
    ['es-ES', ['un audio', '3 audios'], 'a, b y c'],
    ['ja', ['音声1件', '音声3件'], 'a、b、c'],
  ] as const)(
    '%s: counts take the plural form, lists join as the language does',
    (language, [one, three], list) => {
      const phrases = PHRASES[language];
      expect(phrases.count('audio', 1)).toBe(one);
      expect(phrases.count('audio', 3)).toBe(three);
      expect(phrases.list(['a', 'b', 'c'])).toBe(list);
    },
  );

  test('a locale without a translation speaks English; a regional one its language', () => {
    expect(readerPhrases(translatorFor('pt-BR')).said('a', 'b.')).toBe('a said b.');
    expect(readerPhrases(translatorFor('es-419')).said('a', 'b.')).toBe('a dijo: b.');
    expect(ENGLISH_PHRASES.preface).toBe('Here is what the chat says.');
  });

  test.each(LANGUAGES)(
    '%s: the user’s text is put in as it is, never read as a template',
    (language) => {
      const phrases = PHRASES[language];
      const text = "{{name}} $& $' $t(reader.speech.link)";
      expect(phrases.said('Bobby', text)).toContain(text);
      expect(phrases.withExtras(text, 'x')).toContain(text);
    },
  );
});
