import { createInstance, type i18n } from 'i18next';
import type { Catalog } from './catalog.ts';
import type { MessageParams } from './keys.ts';
import { FALLBACK_LANGUAGE, LANGUAGES, type Language, resolveLanguage } from './languages.ts';
import de from './locales/de.json' with { type: 'json' };
import en from './locales/en.json' with { type: 'json' };
import esES from './locales/es-ES.json' with { type: 'json' };
import fr from './locales/fr.json' with { type: 'json' };
import ja from './locales/ja.json' with { type: 'json' };

/** Every translation file, by language. */
export const CATALOGS: Readonly<Record<Language, Catalog>> = {
  en,
  de,
  fr,
  'es-ES': esES,
  ja,
};

/** A key of the translation files (plural forms merged into their base key). */
export type MessageKey = keyof MessageParams;

/** The parameters of a key: none may be left out, and keys without any take none. */
export type MessageArgs<K extends MessageKey> =
  MessageParams[K] extends Record<string, never> ? [] : [params: MessageParams[K]];

/** Renders messages in one language; what replies and errors are written with. */
export interface Translator {
  readonly language: Language;
  t<K extends MessageKey>(key: K, ...args: MessageArgs<K>): string;
}

let shared: i18n | undefined;

/**
 * The i18next instance over the translation files. It is created once, on first use,
 * and holds only the read-only catalogs: every language is chosen per call, never
 * switched globally, so sharing it cannot leak one member's language into another's reply.
 */
function instance(): i18n {
  if (shared !== undefined) return shared;
  const created = createInstance();
  void created.init({
    resources: Object.fromEntries(
      LANGUAGES.map((language) => [language, { translation: CATALOGS[language] }]),
    ),
    lng: FALLBACK_LANGUAGE,
    fallbackLng: FALLBACK_LANGUAGE,
    supportedLngs: [...LANGUAGES],
    load: 'currentOnly',
    initAsync: false,
    returnNull: false,
    // Replies are Discord markdown, not HTML; values are escaped by the caller (quoteSafely).
    interpolation: { escapeValue: false },
  });
  shared = created;
  return created;
}

/** A translator for a Discord locale (`interaction.locale`); any locale we lack gets English. */
export function translatorFor(locale: string | null | undefined): Translator {
  const language = resolveLanguage(locale);
  const fixed = instance().getFixedT(language);
  return {
    language,
    // Nesting ($t(...)) is not used: off, so a member's text can never pull in another message.
    t: (key, ...args) => String(fixed(key, { ...(args[0] ?? {}), nest: false } as never)),
  };
}

/** English, for logs and for texts that have no member to follow. */
export const english: Translator = translatorFor(FALLBACK_LANGUAGE);

/**
 * A key's text in every language but English, keyed by Discord locale: what
 * `setDescriptionLocalizations` and `setNameLocalizations` take.
 */
export function localizations(key: MessageKey): Partial<Record<Language, string>> {
  const out: Partial<Record<Language, string>> = {};
  for (const language of LANGUAGES) {
    if (language !== FALLBACK_LANGUAGE) out[language] = render(translatorFor(language), key);
  }
  return out;
}

/** Renders a key whether or not it takes parameters (for generic code such as `localizations`). */
function render(translator: Translator, key: MessageKey): string {
  return (translator.t as (key: MessageKey) => string)(key);
}
