import { readFile } from 'node:fs/promises';
import { describe, expect, test } from 'vitest';
import { keysSource } from '../../src/i18n/catalog.ts';
import {
  CATALOGS,
  flatten,
  LANGUAGES,
  type MessageKey,
  messageShapes,
  placeholders,
  pluralForm,
  translatorFor,
} from '../../src/i18n/index.ts';

const english = messageShapes(CATALOGS.en);
const others = LANGUAGES.filter((language) => language !== 'en');

describe('translation files', () => {
  test('keys.ts is generated from the current en.json (run `npm run i18n:keys` when this fails)', async () => {
    const onDisk = await readFile(new URL('../../src/i18n/keys.ts', import.meta.url), 'utf8');
    expect(onDisk).toBe(keysSource(CATALOGS.en));
  });

  test.each(others)('%s has every English message and no other', (language) => {
    const shapes = messageShapes(CATALOGS[language]);
    expect([...shapes.keys()].sort()).toEqual([...english.keys()].sort());
  });

  test.each(LANGUAGES)('%s has exactly the plural forms its language needs', (language) => {
    const needed = new Intl.PluralRules(language).resolvedOptions().pluralCategories;
    const forms = new Map<string, string[]>();
    for (const key of flatten(CATALOGS[language]).keys()) {
      const { base, form } = pluralForm(key);
      if (form !== undefined) forms.set(base, [...(forms.get(base) ?? []), form]);
    }
    for (const [key, shape] of english) {
      if (!shape.plural) continue;
      expect([...(forms.get(key) ?? [])].sort(), `${language} ${key}`).toEqual([...needed].sort());
    }
  });

  test.each(others)('%s uses only placeholders the English text declares', (language) => {
    for (const [key, text] of flatten(CATALOGS[language])) {
      const declared = english.get(pluralForm(key).base)?.params ?? [];
      for (const name of placeholders(text)) expect(declared, `${language} ${key}`).toContain(name);
    }
  });

  test('every English placeholder is used by the English text (no dead parameter)', () => {
    for (const [key, text] of flatten(CATALOGS.en)) {
      const { base, form } = pluralForm(key);
      const params = (english.get(base)?.params ?? []).filter((p) => p !== 'count' || !form);
      for (const name of params) expect(placeholders(text), key).toContain(name);
    }
  });

  test.each(LANGUAGES)('%s: every message renders with every placeholder filled', (language) => {
    const { t } = translatorFor(language);
    for (const [key, { params }] of english) {
      for (const count of [0, 1, 2, 5, 1_000_000]) {
        const values = Object.fromEntries(params.map((p) => [p, p === 'count' ? count : `‹${p}›`]));
        const text = (t as (k: MessageKey, v: object) => string)(key as MessageKey, values);
        expect(text, `${language} ${key}`).not.toMatch(/\{\{|\}\}|undefined/);
        expect(text, `${language} ${key}`).not.toBe(key);
        expect(text.trim().length, `${language} ${key}`).toBeGreaterThan(0);
      }
    }
  });

  test('translations differ from English (a copied file is not a translation)', () => {
    for (const language of others) {
      const theirs = flatten(CATALOGS[language]);
      const same = [...flatten(CATALOGS.en)].filter(([key, text]) => theirs.get(key) === text);
      // Only language-neutral texts (units, markup) may stay identical.
      expect(same.length, `${language}: ${same.map(([k]) => k).join(', ')}`).toBeLessThan(8);
    }
  });
});

describe('catalog helpers', () => {
  test.each([
    ['a {{x}} b {{ y }} {{x}}', ['x', 'y']],
    ['{{count, number}} items', ['count']],
    ['no placeholders', []],
  ])('placeholders(%j) = %j', (text, names) => {
    expect(placeholders(text)).toEqual(names);
  });

  test.each([
    ['stop.stopped_one', { base: 'stop.stopped', form: 'one' }],
    ['stop.stopped_other', { base: 'stop.stopped', form: 'other' }],
    ['time.ms', { base: 'time.ms' }],
    ['errors.say_not_in_voice', { base: 'errors.say_not_in_voice' }],
  ])('pluralForm(%s)', (key, expected) => {
    expect(pluralForm(key)).toEqual(expected);
  });
});
