import { describe, expect, test } from 'vitest';
import { translatorFor } from '../../src/i18n/index.ts';
import { UserError } from '../../src/refusal/index.ts';
import { checkLanguage, describeDefaults } from '../../src/settings/index.ts';
import { languageChoices, languageName, speakableLanguages } from '../../src/speech/index.ts';

describe('speakableLanguages', () => {
  test('v3: Base speaks its 8 letters’ languages, Advanced 23; v2 none', () => {
    expect([...speakableLanguages('v3', 'base')].sort()).toEqual([
      'en',
      'es',
      'fr',
      'hi',
      'it',
      'ja',
      'pt',
      'zh',
    ]);
    expect(speakableLanguages('v3', 'advance')).toHaveLength(23);
    expect(speakableLanguages('v2', 'base')).toEqual([]);
    expect(speakableLanguages('v2', 'advance')).toEqual([]);
  });
});

describe('languageChoices', () => {
  test.each([
    ['en-US', 'de', 'German (de)'],
    ['de', 'de', 'Deutsch (de)'],
    ['fr', 'ja', 'japonais (ja)'],
    ['ja', 'de', 'ドイツ語 (de)'],
    ['es-ES', 'en', 'inglés (en)'],
  ])('named in the member’s locale %s: %s → %s', (locale, code, name) => {
    expect(languageName(code, locale)).toBe(name);
  });

  test('only the codes offered, filtered by what was typed (name or code), at most 25', () => {
    const base = speakableLanguages('v3', 'base');
    expect(languageChoices(base, '', 'en-US').map((c) => c.value)).toHaveLength(8);
    expect(languageChoices(base, 'fre', 'en-US')).toEqual([{ name: 'French (fr)', value: 'fr' }]);
    expect(languageChoices(base, '(ja', 'de')).toEqual([{ name: 'Japanisch (ja)', value: 'ja' }]);
    expect(languageChoices(base, 'deutsch', 'de')).toEqual([]);
    expect(
      languageChoices(speakableLanguages('v3', 'advance'), '', 'en').length,
    ).toBeLessThanOrEqual(25);
    expect(languageChoices(speakableLanguages('v2', 'base'), '', 'en')).toEqual([]);
  });
});

describe('checkLanguage', () => {
  const v3 = (model: 'base' | 'advance') => speakableLanguages('v3', model);
  const v2 = (model: 'base' | 'advance') => speakableLanguages('v2', model);

  test('a language the model speaks passes', () => {
    expect(() => checkLanguage('fr', 'base', v3)).not.toThrow();
    expect(() => checkLanguage('de', 'advance', v3)).not.toThrow();
  });

  test('one it does not is refused, naming those it does', () => {
    const error = (() => {
      try {
        checkLanguage('de', 'base', v3);
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(UserError);
    expect((error as UserError).id).toBe('language_not_spoken');
    expect((error as UserError).message).toContain(
      'cannot speak `de`: choose one of the languages offered (en, es, fr, hi, it, ja, pt, zh)',
    );
  });

  test('on v2, which takes no language, says so rather than pretend', () => {
    expect(() => checkLanguage('en', 'base', v2)).toThrow(
      'This server’s TTS API (v2) takes no language: nothing was changed.',
    );
  });

  test('the defaults name the language once set', () => {
    const en = translatorFor('en-US');
    expect(describeDefaults(en, { language: 'fr' })).toBe(
      'voice not set, model base, speed 1, language fr',
    );
    expect(describeDefaults(en, {})).toBe('voice not set, model base, speed 1');
  });
});
