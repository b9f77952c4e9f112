/**
 * Speech languages as members pick them (`/config defaults language`, `/myvoice language`):
 * only the codes the server's model speaks, each named in the member's locale. Pure.
 */
import { type Model, V2_CONTROLS } from '../tts/index.ts';
import { V3_CONTROLS } from '../tts/v3/index.ts';

/** Discord's most choices in one autocomplete answer. */
const MAX_CHOICES = 25;

/** The languages (ISO 639-1) `model` speaks on the API `version`; none on v2, which takes no language. */
export function speakableLanguages(version: 'v2' | 'v3', model: Model): readonly string[] {
  return (version === 'v3' ? V3_CONTROLS : V2_CONTROLS).languages?.(model) ?? [];
}

/** A language's name in `locale`, with its code: `Deutsch (de)`, `ドイツ語 (de)`. */
export function languageName(code: string, locale: string): string {
  const name = new Intl.DisplayNames([locale, 'en'], { type: 'language', fallback: 'code' }).of(
    code,
  );
  return name === undefined || name === code ? code : `${name} (${code})`;
}

/** Autocomplete choices: the codes offered whose name or code holds what was typed, by name. */
export function languageChoices(
  codes: readonly string[],
  typed: string,
  locale: string,
): { name: string; value: string }[] {
  const wanted = typed.trim().toLocaleLowerCase(locale);
  return codes
    .map((code) => ({ name: languageName(code, locale), value: code }))
    .filter((choice) => choice.name.toLocaleLowerCase(locale).includes(wanted))
    .sort((a, b) => a.name.localeCompare(b.name, locale))
    .slice(0, MAX_CHOICES);
}
