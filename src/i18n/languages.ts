/** The languages the bot answers in, and how a Discord locale picks one. */

/** Translation files that exist, by Discord locale code; English is the fallback. */
export const LANGUAGES = ['en', 'de', 'fr', 'es-ES', 'ja'] as const;

/** One of the bot's languages. */
export type Language = (typeof LANGUAGES)[number];

/** The language English speakers (and every locale without a translation) get. */
export const FALLBACK_LANGUAGE: Language = 'en';

const base = (locale: string): string => locale.toLowerCase().split('-')[0] ?? '';

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
