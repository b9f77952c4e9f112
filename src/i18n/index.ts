export { type Catalog, flatten, messageShapes, placeholders, pluralForm } from './catalog.ts';
export { limitText, relativeTime, windowText } from './format.ts';
export type { MessageParams, Param } from './keys.ts';
export {
  FALLBACK_LANGUAGE,
  LANGUAGES,
  type Language,
  localeOfLanguage,
  resolveLanguage,
  WORDLESS_BLEEP,
} from './languages.ts';
export {
  CATALOGS,
  english,
  localizations,
  type MessageArgs,
  type MessageKey,
  type Translator,
  translatorFor,
} from './translator.ts';
