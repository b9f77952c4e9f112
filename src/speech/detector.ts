/**
 * The language identifier the bot ships: ELD (Nito-ELD, `eld`), its "small" n-gram set, bundled
 * in the package (nothing is downloaded at run time). Chosen over franc, tinyld, cld3-asm and
 * languagedetect for being right on short chat lines (see docs/design/LANGUAGE.md); it costs about
 * 50 MB of heap and 0.4 s to load, so it is loaded only where the API takes a language (v3).
 */
import type { DetectLanguage } from './language.ts';

/** Loads the identifier (once per call: the composition root keeps the one it got). */
export async function loadLanguageDetector(): Promise<DetectLanguage> {
  const { eld } = await import('eld/small');
  return (text) => {
    const result = eld.detect(text);
    return { language: result.language, reliable: result.isReliable() };
  };
}

/** The identifier where the API takes a language (v3); none on v2, which never loads it (about 50 MB of heap). */
export async function languageDetectorFor(api: {
  readonly version: string;
}): Promise<DetectLanguage | undefined> {
  return api.version === 'v3' ? await loadLanguageDetector() : undefined;
}
