/** The languages the bot answers in, and how a Discord locale picks one. */

/** Translation files that exist, by Discord locale code; English is the fallback. */
export const LANGUAGES = ['en', 'de', 'fr', 'es-ES', 'ja'] as const;

/** One of the bot's languages. */
export type Language = (typeof LANGUAGES)[number];

/** The language English speakers (and every locale without a translation) get. */
export const FALLBACK_LANGUAGE: Language = 'en';

const base = (locale: string): string => locale.toLowerCase().split('-')[0] ?? '';

/**
 * The translation for an ISO 639-1 speech language code (`es` → `es-ES`, `de` → `de`), as a
 * line's language comes (see `lineLanguage`); undefined when there is none (`it`, `ko`).
 */
export function localeOfLanguage(code: string): Language | undefined {
  const wanted = code.toLowerCase();
  return LANGUAGES.find((language) => base(language) === wanted);
}

/**
 * What is said over a blocked word in a line read in a language without a translation: a
 * pause, since the server's "beep" would be a word of another language to its voice.
 */
export const WORDLESS_BLEEP = '…';

/**
 * The language to answer a Discord locale in: the same locale when we have it,
 * else the same language in another region (`es-419` → `es-ES`, `en-GB` → `en`),
 * else English.
 */
export function resolveLanguage(locale: string | null | undefined): Language {
  if (locale === null || locale === undefined || locale === '') return FALLBACK_LANGUAGE;
  const wanted = locale.toLowerCase();
  const exact = LANGUAGES.find((language) => language.toLowerCase() === wanted);
  if (exact !== undefined) return exact;
  return LANGUAGES.find((language) => base(language) === base(locale)) ?? FALLBACK_LANGUAGE;
}
