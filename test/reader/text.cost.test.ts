/**
 * The chat cleanup runs on the event loop every server shares, so its cost must stay linear in
 * the message whatever a member posts and whatever the dictionary holds (issue 22: `u.u.u…`
 * with `u` → a long word blocked the process for seconds). Timings are generous bounds: the
 * cleanup takes a few ms here, the old code seconds on the same inputs.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { ENGLISH_PHRASES as EN } from '../../src/reader/phrases.ts';
import { type CleanupOptions, cleanMessage, finalPass, truncate } from '../../src/reader/text.ts';
import type { DictionaryEntry } from '../../src/store/index.ts';

/** Per cleanup; the work done is a few ms, so only a stall of the old kind can reach it. */
const BUDGET_MS = 250;

const names = { user: () => 'Bobby', role: () => 'Mods', channel: () => 'general' };
const options: CleanupOptions = { emoji: 'names', spoilers: 'read', maxLength: 1000 };

/**
 * The fastest of up to three runs: a pure function's cost without a noisy neighbour's pauses.
 * A run ten times over the budget is no pause, so it is not repeated.
 */
function fastestMs(run: () => unknown): number {
  let best = Number.POSITIVE_INFINITY;
  for (let attempt = 0; attempt < 3; attempt++) {
    const start = performance.now();
    run();
    best = Math.min(best, performance.now() - start);
    if (best < BUDGET_MS || best > 10 * BUDGET_MS) break;
  }
  return best;
}

function clean(content: string, dictionary: readonly DictionaryEntry[] = [], maxLength = 1000) {
  return cleanMessage(
    { content, attachments: [], stickers: [] },
    names,
    { ...options, maxLength },
    EN,
    dictionary,
  );
}

const letters = (length: number): string =>
  'abcdefghijklmnopqrstuvwxyz'.repeat(Math.ceil(length / 26)).slice(0, length);

describe('the probe of issue 22: `u.u.u…` with `u` → a long word', () => {
  test.each([
    [2000, 20],
    [2000, 45],
    [4000, 20],
    [4000, 45],
    [2000, 200],
    [4000, 200],
  ])('%i characters, `u` → %i letters: cleaned within the budget', (length, size) => {
    const content = 'u.'.repeat(length / 2);
    const dictionary = [{ word: 'u', replacement: letters(size) }];
    expect(fastestMs(() => clean(content, dictionary))).toBeLessThan(BUDGET_MS);
    const { text } = clean(content, dictionary);
    expect(text.length).toBeLessThanOrEqual(1000);
    expect(text).toMatch(/and more$/);
  });
});

describe('each cleanup rule on the input that made it quadratic', () => {
  test.each([
    ['a scheme-like run of letters and digits', 'a1'.repeat(2000)],
    ['letters and dots', 'ab.'.repeat(1333)],
    ['a run of @ before no word', `${'@'.repeat(3999)} `],
    ['empty lines', '\n'.repeat(4000)],
    ['blank lines of spaces', ' \n'.repeat(2000)],
    ['markdown link starts without an end', '[a](x'.repeat(800)],
    ['opening brackets', '['.repeat(4000)],
    ['inline code starts', '`a'.repeat(2000)],
    ['mention starts', '<@1'.repeat(1333)],
    ['spoiler and code fences', '||```'.repeat(800)],
    ['repeated words', 'gg '.repeat(1333)],
    ['repeated emoji', '🔥'.repeat(2000)],
    ['punctuation and spaces', '. '.repeat(2000)],
  ])('%s (4,000 characters)', (_, content) => {
    expect(fastestMs(() => clean(content))).toBeLessThan(BUDGET_MS);
    // The same input with every character a dictionary word.
    const dictionary = [...new Set(content)].map((word) => ({ word, replacement: letters(200) }));
    expect(fastestMs(() => clean(content, dictionary))).toBeLessThan(BUDGET_MS);
  });

  test('a dictionary of 500 words that each match the text far before failing', () => {
    // Found only at word starts (a lookbehind), each word fails after its long shared prefix.
    const dictionary = Array.from({ length: 500 }, (_, i) => ({
      word: `${'a '.repeat(45)}b${i}`,
      replacement: letters(200),
    }));
    expect(fastestMs(() => clean('a '.repeat(2000), dictionary))).toBeLessThan(BUDGET_MS);
  });

  test.each([
    ['a scheme-like run', 'a1'.repeat(20_000)],
    ['a run of @', `${'@'.repeat(40_000)} `],
    ['empty lines', '\n'.repeat(40_000)],
    ['punctuation and spaces before a word', `${'. '.repeat(20_000)}x${' y'.repeat(20)}`],
  ])('finalPass and truncate on %s of 40,000 characters (a long dictionary result)', (_, text) => {
    expect(fastestMs(() => finalPass(text, EN))).toBeLessThan(BUDGET_MS);
    // Cut just before the end: the stops run is inside the kept text, not at its end.
    expect(fastestMs(() => truncate(text, text.length - 1, EN))).toBeLessThan(BUDGET_MS);
  });
});

/** Characters that feed the costly rules: runs of scheme letters, dots, mentions, fences. */
const hostileUnit = fc.constantFrom(
  'u',
  'a',
  '1',
  '.',
  '+',
  '-',
  ':',
  '/',
  'w',
  '@',
  '<',
  '>',
  '#',
  '[',
  ']',
  '(',
  ')',
  '|',
  '`',
  '*',
  '_',
  ' ',
  '\n',
  '🔥',
  '\u200b',
);
/** Text of hostile characters, with long runs of a short pattern (`u.u.u…`, `@@@…`). */
const hostileText = (maxLength: number) =>
  fc
    .array(
      fc.oneof(
        fc.string({ unit: hostileUnit, maxLength: 20 }),
        fc
          .tuple(
            fc.string({ unit: hostileUnit, minLength: 1, maxLength: 3 }),
            fc.integer({ min: 2, max: 2000 }),
          )
          .map(([pattern, times]) => pattern.repeat(times)),
      ),
      { maxLength: 40 },
    )
    .map((parts) => parts.join('').slice(0, maxLength));

describe('property: any message and dictionary', () => {
  test('a message up to 4,000 characters with a dictionary of up to 500 entries is cleaned within the budget', () => {
    fc.assert(
      fc.property(
        hostileText(4000),
        fc.array(
          fc.record({
            word: fc.string({ unit: hostileUnit, minLength: 1, maxLength: 3 }),
            replacement: fc.oneof(hostileText(200), fc.integer({ min: 1, max: 200 }).map(letters)),
          }),
          { maxLength: 500 },
        ),
        fc.integer({ min: 20, max: 1000 }),
        (content, entries, maxLength) => {
          const dictionary = entries.filter((e) => e.word.trim() !== '');
          expect(fastestMs(() => clean(content, dictionary, maxLength))).toBeLessThan(BUDGET_MS);
          expect(clean(content, dictionary, maxLength).text.length).toBeLessThanOrEqual(maxLength);
        },
      ),
      {
        numRuns: 150,
        // Shrinking re-runs a slow case many times; the first failure says enough.
        endOnFailure: true,
        examples: [
          ['u.'.repeat(2000), [{ word: 'u', replacement: letters(45) }], 1000],
          ['u.'.repeat(1000), [{ word: 'u', replacement: letters(200) }], 1000],
        ],
      },
    );
  });
});
