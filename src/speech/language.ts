/**
 * Which language a line is read in (issue 31): the script alone where it decides (kana is
 * Japanese, Hangul Korean…), else the language identifier's answer when it is sure, else the
 * member's language, then the server's. A language the model cannot speak gives the server's.
 * Pure: the identifier is handed in (see `loadLanguageDetector`).
 */

/** A language identifier: the ISO 639-1 code it guesses for `text` ('' for none), and whether it is sure. */
export type DetectLanguage = (text: string) => {
  readonly language: string;
  readonly reliable: boolean;
};

/** What a line's language falls back to, and what the model can speak. */
export interface LanguageFallbacks {
  /** ISO 639-1 codes the server's model speaks (none: the API takes no language). */
  readonly speakable: readonly string[];
  /** The member's own language (`/myvoice language`). */
  readonly member?: string | undefined;
  /** The server's speech language (`/config defaults language`). */
  readonly server?: string | undefined;
}

/** Fewer letters than this, and the identifier is not asked: "ok", "gg", "lol" say nothing of a language. */
export const MIN_DETECT_LETTERS = 8;

/**
 * Scripts and the languages written in them. A script decides a line's language when exactly
 * one of its languages is speakable (Cyrillic is Russian for a model that speaks Russian only).
 * Han is shared by Chinese and Japanese: kana beside it makes it Japanese, and four Han
 * letters without kana make it Chinese (a Japanese sentence without kana is rare).
 */
const SCRIPTS: readonly {
  readonly pattern: RegExp;
  readonly languages: readonly string[];
  /** Fewer letters than this decide nothing (a lone 草 is Japanese slang as often as Chinese). */
  readonly min?: number;
}[] = [
  { pattern: /[\p{Script=Hiragana}\p{Script=Katakana}]/gu, languages: ['ja'] },
  { pattern: /\p{Script=Hangul}/gu, languages: ['ko'] },
  { pattern: /\p{Script=Devanagari}/gu, languages: ['hi', 'mr', 'ne'] },
  { pattern: /\p{Script=Arabic}/gu, languages: ['ar', 'fa', 'ur'] },
  { pattern: /\p{Script=Hebrew}/gu, languages: ['he', 'yi'] },
  { pattern: /\p{Script=Greek}/gu, languages: ['el'] },
  { pattern: /\p{Script=Cyrillic}/gu, languages: ['ru', 'uk', 'bg', 'sr', 'be', 'kk', 'mk'] },
  { pattern: /\p{Script=Thai}/gu, languages: ['th'] },
  { pattern: /\p{Script=Han}/gu, languages: ['zh'], min: 4 },
  { pattern: /\p{Script=Latin}/gu, languages: [] },
];

/** A line's letters counted by script, the largest first. */
function scriptsOf(text: string): { languages: readonly string[]; letters: number; min: number }[] {
  return SCRIPTS.map(({ pattern, languages, min }) => ({
    languages,
    letters: text.match(pattern)?.length ?? 0,
    min: min ?? 1,
  }))
    .filter((script) => script.letters > 0)
    .sort((a, b) => b.letters - a.letters);
}

/**
 * How a line's script reads it: `decided` with the one speakable language the script allows
 * (kana making up a third of the letters makes a line Japanese: no other language writes it), `latin` for a
 * line the identifier must read, `mixed` for two scripts of weight, `none` without letters.
 */
export function scriptVerdict(
  text: string,
  speakable: readonly string[],
):
  | { readonly kind: 'decided'; readonly language: string }
  | { readonly kind: 'latin' | 'mixed' | 'none' | 'other'; readonly letters: number } {
  const scripts = scriptsOf(text);
  const letters = scripts.reduce((sum, script) => sum + script.letters, 0);
  const [main, second] = scripts;
  if (main === undefined) return { kind: 'none', letters: 0 };
  const kana = scripts.find(
    (script) => script.languages[0] === 'ja' && script.languages.length === 1,
  );
  // Kana is Japanese alone; Han and Latin beside it (漢字, "stream") are Japanese writing too.
  if (kana !== undefined && kana.letters * 3 >= letters) return { kind: 'decided', language: 'ja' };
  if (second !== undefined && second.letters * 5 >= letters) return { kind: 'mixed', letters };
  if (main.languages.length === 0) return { kind: 'latin', letters };
  if (main.letters < main.min) return { kind: 'mixed', letters };
  const candidates = main.languages.filter((language) => speakable.includes(language));
  const [only] = candidates;
  if (candidates.length === 1 && only !== undefined) return { kind: 'decided', language: only };
  // A script the model speaks none of (Thai) is read in the server's language; one it speaks
  // several languages of is left to the identifier.
  return { kind: candidates.length === 0 ? 'other' : 'latin', letters };
}

/** `language` when the model speaks it, else undefined. */
function spoken(language: string | undefined, speakable: readonly string[]): string | undefined {
  return language !== undefined && speakable.includes(language) ? language : undefined;
}

/**
 * The language `text` is read in, as an ISO 639-1 code the model speaks; undefined when the
 * API takes no language or nothing applies (the model's default then). Short, mixed and
 * emoji-only lines take the member's language, else the server's; a line in a language the
 * model cannot speak is read in the server's (not skipped).
 */
export function lineLanguage(
  text: string,
  detect: DetectLanguage | undefined,
  fallbacks: LanguageFallbacks,
): string | undefined {
  const { speakable } = fallbacks;
  if (speakable.length === 0) return undefined;
  const server = spoken(fallbacks.server, speakable);
  const fallback = spoken(fallbacks.member, speakable) ?? server;
  const verdict = scriptVerdict(text, speakable);
  // Kana decides Japanese whatever the model speaks: one without it reads the line as any other.
  if (verdict.kind === 'decided') return spoken(verdict.language, speakable) ?? server;
  if (verdict.kind === 'other') return server;
  if (verdict.kind !== 'latin' || verdict.letters < MIN_DETECT_LETTERS || detect === undefined)
    return fallback;
  const guess = detect(text);
  if (!guess.reliable || guess.language === '') return fallback;
  return spoken(guess.language, speakable) ?? server;
}
