import { expect, test } from 'vitest';
import { resolveLanguage } from '../../src/i18n/index.ts';

test.each([
  ['de', 'de'],
  ['fr', 'fr'],
  ['es-ES', 'es-ES'],
  ['es-419', 'es-ES'],
  ['ja', 'ja'],
  ['en-US', 'en'],
  ['en-GB', 'en'],
  ['pt-BR', 'en'],
  ['zh-CN', 'en'],
  ['ko', 'en'],
  ['DE', 'de'],
  ['', 'en'],
  [null, 'en'],
  [undefined, 'en'],
])('Discord locale %s is answered in %s', (locale, language) => {
  expect(resolveLanguage(locale)).toBe(language);
});
