/**
 * A server's blocked words, found in chat and `/say` text however they are disguised: case,
 * accents, repeated letters ("baaad"), separators ("b.a.d", "b a d") and look-alike swaps
 * ("b4d"). Whole words only, so "class" never hits "ass". Pure and linear in the text: a trie of
 * the words is walked by a bounded set of partial matches, one step per letter each; no regular
 * expression is ever built from the words. The set can be as large as the list (a list built of
 * `i` and `l` against a text of `1`s), so a text is given a budget of steps proportional to its
 * length, whatever the list, and one that spends it counts as blocked.
 *
 * Word rule: a match starts and ends at a word boundary (a space, punctuation, or the text's
 * edge; characters of scripts written without spaces, such as Japanese, are boundaries on
 * their own). Inside a match, punctuation may sit anywhere ("ba.d"); spaces only when the word
 * is spelled out letter by letter ("b a d", "b aa d"), so "an al" is not "anal". An entry of
 * several words ("bad word") also hits them written together.
 */
import { type Gap, type LetterUnit, letterUnits, type StepMeter } from './blocklist-units.ts';

export type { StepMeter } from './blocklist-units.ts';

/** Most blocked words a server may have, and the longest one: settings validation enforces them. */
export const BLOCKLIST_LIMITS = { words: 500, wordLength: 50 } as const;

/** Where a blocked word was found: original text indexes (end exclusive) and the entry it hit. */
export interface BlockedSpan {
  readonly start: number;
  readonly end: number;
  readonly word: string;
  /**
   * Set on the one span covering the whole text when matching it would cost more than
   * {@link STEP_BUDGET} allows (only a list built to be slow gets there): the text counts as
   * blocked, with no word to bleep.
   */
  readonly tooCostly?: true;
}

/**
 * Most matching steps a text may take: `base` plus `perLetter` for each letter of it. Matching
 * is linear in the text for a given list, but the factor grows with the list: 500 entries of 50
 * letters written with `i` and `l` keep thousands of partial matches alive on a text of `1`s
 * (seconds of CPU for one chat message). Ordinary lists take at most a few steps a letter even
 * on texts made to be hard (see the `blocklist` bench and its property test), so the budget is
 * never met by them, and a text that would spend it is held to have a blocked word.
 */
export const STEP_BUDGET = { base: 4_000, perLetter: 128 } as const;

/** The compiled blocklist of a server. */
export interface BlocklistMatcher {
  /** Number of entries that have letters to match. */
  readonly size: number;
  /** Every blocked word in `text`, in order; work counted in `meter` when given. */
  find(text: string, meter?: StepMeter): BlockedSpan[];
  /** `text` with each blocked word replaced by `word` (a short "beep"); unchanged when clean. */
  bleep(text: string, word: string): string;
}

/** Where an entry's words meet ("bad word"): crossed between any two letters. */
const BREAK = ' ';

/** How a partial match has been written so far: one letter, letters together, or spelled out. */
type Spacing = 'one' | 'solid' | 'spelled';

interface Thread {
  readonly node: number;
  readonly spacing: Spacing;
  /** Index of its first letter unit. */
  readonly start: number;
}

class Trie {
  readonly children: Map<string, number>[] = [new Map()];
  /** The letter on the edge into each node ('' for the root and breaks). */
  readonly letters: string[] = [''];
  /** The entry that ends at a node, if one does. */
  readonly words: (string | undefined)[] = [undefined];

  child(node: number, letter: string): number | undefined {
    return this.children[node]?.get(letter);
  }

  childOrNew(node: number, letter: string): number {
    const existing = this.child(node, letter);
    if (existing !== undefined) return existing;
    const id = this.children.length;
    this.children.push(new Map());
    this.letters.push(letter === BREAK ? '' : letter);
    this.words.push(undefined);
    this.children[node]?.set(letter, id);
    return id;
  }
}

/** How a partial match goes on across `gap`; undefined when the spacing rule ends it. */
function nextSpacing(spacing: Spacing, gap: Gap, repeat: boolean): Spacing | undefined {
  if (gap === 'mark' || (repeat && gap === 'none')) return spacing;
  if (gap === 'space') return spacing === 'solid' ? undefined : 'spelled';
  return spacing === 'spelled' ? undefined : 'solid';
}

/**
 * Compiles a server's blocked words (written in plain letters; digits and symbols in them are
 * taken literally). Entries with no letter are ignored. Cost: one trie node per letter.
 */
export function compileBlocklist(words: readonly string[]): BlocklistMatcher {
  const trie = new Trie();
  let size = 0;
  for (const word of words) {
    const units = letterUnits(word);
    if (units.length === 0) continue;
    let node = 0;
    units.forEach((unit, i) => {
      if (i > 0 && unit.gap === 'space') node = trie.childOrNew(node, BREAK);
      node = trie.childOrNew(node, unit.letters[0] ?? '');
    });
    if (trie.words[node] === undefined) size += 1;
    trie.words[node] ??= word;
  }
  const find = (text: string, meter?: StepMeter): BlockedSpan[] => {
    if (size === 0) return [];
    const units = letterUnits(text, meter);
    const budget = STEP_BUDGET.base + STEP_BUDGET.perLetter * units.length;
    return (
      findIn(trie, units, budget, meter) ?? [
        { start: 0, end: text.length, word: '', tooCostly: true },
      ]
    );
  };
  return { size, find, bleep: (text, word) => bleepSpans(text, find(text), word) };
}

// The spans of `units`, or undefined once more than `budget` steps were taken.
function findIn(
  trie: Trie,
  units: readonly LetterUnit[],
  budget: number,
  meter?: StepMeter,
): BlockedSpan[] | undefined {
  let steps = 0;
  const found = new Map<string, BlockedSpan>();
  let threads: Thread[] = [];
  let ending: Thread[] = [];
  const emit = (endUnit: number) => {
    for (const thread of ending) {
      const start = units[thread.start]?.start ?? 0;
      const end = units[endUnit]?.end ?? 0;
      const word = trie.words[thread.node] ?? '';
      if (!found.has(`${start}:${end}`)) found.set(`${start}:${end}`, { start, end, word });
    }
  };
  for (const [i, unit] of units.entries()) {
    if (unit.gap !== 'none') emit(i - 1);
    const next = new Map<number, Thread>();
    const keep = (node: number | undefined, spacing: Spacing | undefined, start: number) => {
      if (node === undefined || spacing === undefined) return;
      const key = node * 3 + (spacing === 'one' ? 0 : spacing === 'solid' ? 1 : 2);
      const held = next.get(key);
      if (held === undefined || start < held.start) next.set(key, { node, spacing, start });
    };
    // Each partial match, and a new one, tries each letter the unit may be.
    const cost = (threads.length + 1) * unit.letters.length;
    if (steps + cost > budget) return undefined;
    steps += cost;
    if (meter) meter.steps += cost;
    for (const thread of threads) {
      for (const letter of unit.letters) {
        if (letter === trie.letters[thread.node])
          keep(thread.node, nextSpacing(thread.spacing, unit.gap, true), thread.start);
        const spacing = nextSpacing(thread.spacing, unit.gap, false);
        keep(trie.child(thread.node, letter), spacing, thread.start);
        const across = trie.child(thread.node, BREAK);
        if (across !== undefined) keep(trie.child(across, letter), 'one', thread.start);
      }
    }
    if (unit.gap !== 'none') {
      for (const letter of unit.letters) {
        keep(trie.child(0, letter), 'one', i);
      }
    }
    threads = [...next.values()];
    ending = threads.filter((thread) => trie.words[thread.node] !== undefined);
  }
  emit(units.length - 1);
  return [...found.values()].sort((a, b) => a.start - b.start || b.end - a.end);
}

/** `text` with the spans `find` gave (merged where they overlap) replaced by `word`. */
export function bleepSpans(text: string, spans: readonly BlockedSpan[], word: string): string {
  if (spans.length === 0) return text;
  let out = '';
  let at = 0;
  for (const span of spans) {
    if (span.end <= at) continue;
    out += span.start > at ? text.slice(at, span.start) + word : span.start === at ? word : '';
    at = span.end;
  }
  return out + text.slice(at);
}
