/** Writes `src/i18n/keys.ts` (message keys and their parameters) from the English translation file. */
import { readFile, writeFile } from 'node:fs/promises';
import { type Catalog, keysSource } from '../src/i18n/catalog.ts';

const english = JSON.parse(
  await readFile(new URL('../src/i18n/locales/en.json', import.meta.url), 'utf8'),
) as Catalog;
await writeFile(new URL('../src/i18n/keys.ts', import.meta.url), keysSource(english));
console.log('wrote src/i18n/keys.ts');
