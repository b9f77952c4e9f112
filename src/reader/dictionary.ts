/** The per-server replacement dictionary: whole words, any case. Pure. */
import type { DictionaryEntry } from '../store/index.ts';

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Replaces each dictionary word found as a whole word (not inside a longer word), ignoring
 * case, in one pass: a replacement is never replaced again. Longer words win over their prefixes.
 */
export function applyDictionary(text: string, entries: readonly DictionaryEntry[]): string {
  if (entries.length === 0 || text === '') return text;
  const byWord = new Map(entries.map((entry) => [entry.word.toLowerCase(), entry.replacement]));
  const words = [...byWord.keys()].sort((a, b) => b.length - a.length).map(escapeRegExp);
  const pattern = new RegExp(
    `(?<![\\p{L}\\p{N}_])(?:${words.join('|')})(?![\\p{L}\\p{N}_])`,
    'giu',
  );
  return text.replace(pattern, (match) => byWord.get(match.toLowerCase()) ?? match);
}

/** The dictionary with `entry` added, replacing an entry for the same word (any case). */
export function withEntry(
  entries: readonly DictionaryEntry[],
  entry: DictionaryEntry,
): DictionaryEntry[] {
  const word = entry.word.toLowerCase();
  return [...entries.filter((e) => e.word.toLowerCase() !== word), entry];
}

/** The dictionary without the entry for `word` (any case), and whether there was one. */
export function withoutWord(
  entries: readonly DictionaryEntry[],
  word: string,
): { entries: DictionaryEntry[]; removed: boolean } {
  const wanted = word.trim().toLowerCase();
  const kept = entries.filter((e) => e.word.toLowerCase() !== wanted);
  return { entries: kept, removed: kept.length < entries.length };
}
