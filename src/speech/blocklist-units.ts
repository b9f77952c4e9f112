/**
 * Text as the blocklist sees it: a stream of letters, case and accents folded, look-alike
 * swaps ("5" may be "s") offered as alternatives, separators reduced to what lies between two
 * letters, and every letter mapped back to its place in the original text so a match can be
 * bleeped there. Pure; one pass over the text, built from fixed tables (never member input).
 */

/** What lies between a letter and the one before it: nothing, punctuation only, or a space. */
export type Gap = 'none' | 'mark' | 'space';

/** One letter of the folded text. */
export interface LetterUnit {
  /** What it may stand for: the folded character first, then its swaps ("1": 1, i, l). */
  readonly letters: readonly string[];
  /** Its place in the original text (UTF-16 indexes, end exclusive). */
  readonly start: number;
  readonly end: number;
  /** What separates it from the previous letter; a text's first letter counts as after a mark. */
  readonly gap: Gap;
}

/** Counts the work done, so tests can show it grows linearly with the text. */
export interface StepMeter {
  steps: number;
}

/** Look-alike characters chatters put in place of letters, and the letters they stand for. */
export const SWAPS: Readonly<Record<string, readonly string[]>> = {
  '0': ['o'],
  '1': ['i', 'l'],
  '3': ['e'],
  '4': ['a'],
  '5': ['s'],
  '7': ['t'],
  '@': ['a'],
  $: ['s'],
};

/** Letters that Unicode does not decompose, written as the letters they are read as. */
const FOLDS: Readonly<Record<string, string>> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  ł: 'l',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ı: 'i',
  ħ: 'h',
  ŧ: 't',
};

const WORD = /[\p{L}\p{N}]/u;
const MARK = /\p{M}/u;
/** Invisible characters (zero-width space, joiners, soft hyphen) separate nothing. */
const INVISIBLE = /\p{Cf}/u;
const SPACE = /\s/u;
/** Scripts written without spaces: each character is a word boundary on both sides. */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]/u;

const GAP_ORDER: Readonly<Record<Gap, number>> = { none: 0, mark: 1, space: 2 };

function wider(a: Gap, b: Gap): Gap {
  return GAP_ORDER[a] >= GAP_ORDER[b] ? a : b;
}

/** The characters one code point reads as: lower case, compatibility forms and accents gone. */
function fold(codePoint: string): string {
  let out = '';
  for (const c of codePoint.toLowerCase().normalize('NFKD')) {
    if (!MARK.test(c)) out += FOLDS[c] ?? c;
  }
  return out;
}

/**
 * The letters of `text` with their places and the gaps between them. Work is a bounded amount
 * per code point (one fold and a few table look-ups), counted in `meter` when given.
 */
export function letterUnits(text: string, meter?: StepMeter): LetterUnit[] {
  const units: LetterUnit[] = [];
  let gap: Gap = 'mark';
  let lastUnspaced = false;
  let index = 0;
  for (const codePoint of text) {
    const start = index;
    index += codePoint.length;
    if (meter) meter.steps += 1;
    const folded = fold(codePoint);
    const last = units.at(-1);
    // A combining accent after a letter belongs to it, so a bleep covers the accent too.
    if (folded === '' && gap === 'none' && last !== undefined && MARK.test(codePoint)) {
      units[units.length - 1] = { ...last, end: index };
      continue;
    }
    for (const c of folded) {
      const swaps = SWAPS[c];
      if (WORD.test(c) || swaps !== undefined) {
        const unspaced = UNSPACED.test(c);
        const own = unspaced || lastUnspaced ? wider(gap, 'mark') : gap;
        units.push({ letters: swaps ? [c, ...swaps] : [c], start, end: index, gap: own });
        gap = 'none';
        lastUnspaced = unspaced;
      } else if (SPACE.test(c)) {
        gap = 'space';
      } else if (!INVISIBLE.test(c)) {
        gap = wider(gap, 'mark');
      }
    }
  }
  return units;
}
