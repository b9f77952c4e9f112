import { english, type Translator } from '../i18n/index.ts';
import type { Voice } from '../tts/index.ts';

/** A voice as one line for people: `Lily · Female · American`, marked premium or custom in their language. */
export function voiceLabel(voice: Voice, { t }: Translator = english): string {
  const parts = [voice.name, voice.gender, voice.accent].filter((part) => part !== '');
  const mark =
    voice.accent === 'Custom'
      ? ` ${t('voices.mark_custom')}`
      : voice.free
        ? ''
        : ` ${t('voices.mark_premium')}`;
  return `${parts.join(' · ')}${mark}`;
}

/** Autocomplete choices for a partly typed voice: best matches first, at most 25 (Discord's cap). */
export function voiceChoices(
  voices: readonly Voice[],
  typed: string,
  translator: Translator = english,
): { name: string; value: string }[] {
  const query = typed.trim().toLowerCase();
  const score = (voice: Voice): number => {
    if (query === '') return voice.accent === 'Custom' ? 0 : 1;
    const name = voice.name.toLowerCase();
    if (name.startsWith(query) || voice.voiceId.toLowerCase() === query) return 0;
    if (`${name} ${voice.gender} ${voice.accent} ${voice.voiceId}`.toLowerCase().includes(query))
      return 1;
    return Number.POSITIVE_INFINITY;
  };
  return voices
    .map((voice) => ({ voice, score: score(voice) }))
    .filter(({ score }) => Number.isFinite(score))
    .sort((a, b) => a.score - b.score || a.voice.name.localeCompare(b.voice.name))
    .slice(0, 25)
    .map(({ voice }) => ({
      name: voiceLabel(voice, translator).slice(0, 100),
      value: voice.voiceId,
    }));
}

/**
 * Autocomplete choices for `/voices`' gender or accent: the values the voices have (each once,
 * whatever its case), those containing what was typed, in order, at most 25 (Discord's cap).
 */
export function traitChoices(
  voices: readonly Voice[],
  trait: 'gender' | 'accent',
  typed: string,
): { name: string; value: string }[] {
  const query = typed.trim().toLowerCase();
  const values = new Map<string, string>();
  for (const voice of voices) {
    const value = voice[trait].trim();
    if (value !== '' && !values.has(value.toLowerCase())) values.set(value.toLowerCase(), value);
  }
  return [...values.values()]
    .filter((value) => value.toLowerCase().includes(query))
    .sort((a, b) => {
      const starts =
        Number(!a.toLowerCase().startsWith(query)) - Number(!b.toLowerCase().startsWith(query));
      return starts || a.localeCompare(b);
    })
    .slice(0, 25)
    .map((value) => ({ name: value.slice(0, 100), value: value.slice(0, 100) }));
}

/** Finds a voice by id, case-insensitively as the API does. */
export function findVoice(voices: readonly Voice[], voiceId: string): Voice | undefined {
  const wanted = voiceId.toLowerCase();
  return voices.find((voice) => voice.voiceId.toLowerCase() === wanted);
}

/** Filters voices for `/voices`. */
export function filterVoices(
  voices: readonly Voice[],
  filter: { gender?: string | null; accent?: string | null },
): Voice[] {
  const matches = (value: string, wanted: string | null | undefined) =>
    !wanted || value.toLowerCase() === wanted.toLowerCase();
  return voices.filter(
    (voice) => matches(voice.gender, filter.gender) && matches(voice.accent, filter.accent),
  );
}

/**
 * Accents that say which language a voice speaks: the voice list names no language, only an
 * accent (docs/design/API-V3.md), and an accent like `British` or `Japanese` tells it.
 */
const ACCENT_LANGUAGES: Readonly<Record<string, string>> = {
  american: 'en',
  australian: 'en',
  british: 'en',
  canadian: 'en',
  english: 'en',
  irish: 'en',
  scottish: 'en',
  spanish: 'es',
  mexican: 'es',
  french: 'fr',
  german: 'de',
  italian: 'it',
  japanese: 'ja',
  korean: 'ko',
  chinese: 'zh',
  mandarin: 'zh',
  hindi: 'hi',
  portuguese: 'pt',
  brazilian: 'pt',
  russian: 'ru',
  dutch: 'nl',
  polish: 'pl',
  turkish: 'tr',
  swedish: 'sv',
  arabic: 'ar',
};

/** The languages (ISO 639-1) `voice` speaks as the list tells it; none when it does not say (a clone). */
export function voiceLanguages(voice: Pick<Voice, 'accent'>): readonly string[] {
  const language = ACCENT_LANGUAGES[voice.accent.trim().toLowerCase()];
  return language === undefined ? [] : [language];
}

/** The voices that speak `language`; undefined when none is known to (the list cannot help). */
export function voicesSpeaking<V extends Pick<Voice, 'accent'>>(
  voices: readonly V[],
  language: string | undefined,
): V[] | undefined {
  if (language === undefined) return undefined;
  const speaking = voices.filter((voice) => voiceLanguages(voice).includes(language));
  return speaking.length === 0 ? undefined : speaking;
}
