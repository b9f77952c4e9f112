/**
 * Which words of a cheer are its cheermotes: the ones whose amounts add up to the bits, never
 * a word someone typed ("see you at party2") when another choice or no choice adds up.
 */
import fc from 'fast-check';
import { describe, expect, test, vi } from 'vitest';
import { MAX_STATES, withoutCheermotes } from '../../src/twitch/cheers.ts';

const forty = Array.from({ length: 40 }, () => 'Cheer1').join(' ');
/** Forty word-like candidates of even amounts: no set makes an odd cheer, and the search is long. */
const evenParties = Array.from({ length: 40 }, (_, i) => `party${1000 + 38 * i}`).join(' ');
const oneToForty = Array.from({ length: 40 }, (_, i) => `Cheer${i + 1}`).join(' ');

describe('withoutCheermotes on real-looking cheers', () => {
  test.each([
    // A global prefix that is also a word stays when the other cheermotes make the bits.
    ['Cheer100 see you at party2', 100, 'see you at party2'],
    ['my mp3 player Cheer50', 50, 'my mp3 player'],
    ['Cheer1 Cheer1 Cheer1 hi', 3, 'hi'],
    ['uni2 rocks Kappa10', 10, 'uni2 rocks'],
    ['my goal1 is Cheer100', 100, 'my goal1 is'],
    // A channel's own cheermote beside a global one.
    ['ronniHype10 Cheer5', 15, ''],
    ['ps4 or xbox1 Cheer10 ronniHype5', 15, 'ps4 or xbox1'],
    // The amounts say the word-like one is a cheermote too.
    ['my goal1 is Cheer100', 101, 'my is'],
    ['Anon100 thanks for the stream', 100, 'thanks for the stream'],
    // A global prefix that starts with a digit; only a global prefix may hold digits.
    ['4Head100 lol', 100, 'lol'],
    ['lol 4head5 Cheer5', 10, 'lol'],
    ['xbox360one2 Cheer1', 3, 'xbox360one2'],
    // Of two sets that add up, the one without the word-like prefix, then the one with more sure
    // words (Twitch counts each), then the leftmost.
    ['party2 Cheer1 Cheer1', 2, 'party2'],
    ['Cheer2 Cheer1 Cheer1 ok', 2, 'Cheer2 ok'],
    // A channel's cheermote with sure ones: not a typed word of the same amount in their place.
    ['Cheer10 Cheer5 ronniHype5 and my mp20', 20, 'and my mp20'],
    ['Cheer1 Cheer1 hi', 1, 'Cheer1 hi'],
    // Tags that disagree with the text: only the words no one types go.
    ['Cheer100 my goal1 is party2', 50, 'my goal1 is party2'],
    ['Cheer100 see you at party2 ronniHype5', 1000, 'see you at party2 ronniHype5'],
    ['Kappa10 uni2 DoodleCheer5 mp3', 4, 'uni2 mp3'],
    // Forty candidates.
    [`${forty} gg party2`, 40, 'gg party2'],
    [`${forty} gg party2`, 41, 'Cheer1 gg'],
    [`${oneToForty} done`, 820, 'done'],
    [`Cheer7 ${evenParties} bye`, 20_001, evenParties.concat(' bye')],
    [`${oneToForty} done uni3`, 3, `${oneToForty.replace('Cheer1 Cheer2 ', '')} done uni3`],
  ])('%j (%i bits) → %j', (text, bits, expected) => {
    expect(withoutCheermotes(text, bits)).toBe(expected);
  });
});

/** Prefixes of the generated words by how sure they are cheermotes (see `cheers.ts`). */
const SURE = ['Cheer', 'cheer', 'Kappa', 'DoodleCheer'];
const WORD_LIKE = ['party', 'uni', 'goal'];
const UNKNOWN = ['mp', 'ronniHype', 'xbox'];

/** 0 sure, 1 word-like global, 2 unknown prefix; undefined: not shaped like a cheermote. */
function doubtOf(word: string): { doubt: number; amount: number } | undefined {
  const match = /^([A-Za-z]+)([1-9]\d*)$/.exec(word);
  if (match === null) return undefined;
  const prefix = match[1] ?? '';
  const doubt = SURE.includes(prefix) ? 0 : WORD_LIKE.includes(prefix) ? 1 : 2;
  return { doubt, amount: Number(match[2]) };
}

/** The words of `words` missing from `kept` (a subsequence of it). */
function removed(words: readonly string[], kept: readonly string[]): string[] {
  const out: string[] = [];
  let at = 0;
  for (const word of words) {
    if (kept[at] === word) at++;
    else out.push(word);
  }
  expect(at).toBe(kept.length);
  return out;
}

/** Unknown-prefix words, word-like global ones, then minus the sure ones: the least is best. */
const cost = (words: readonly string[]): [number, number, number] => {
  const doubts = words.map((word) => doubtOf(word)?.doubt);
  return [
    doubts.filter((d) => d === 2).length,
    doubts.filter((d) => d === 1).length,
    -doubts.filter((d) => d === 0).length,
  ];
};

/** The least cost of a set of `words`' candidates adding up to `bits`, by trying every set. */
function bestCost(words: readonly string[], bits: number): [number, number, number] | undefined {
  const candidates = words.filter((word) => doubtOf(word) !== undefined);
  let best: [number, number, number] | undefined;
  for (let mask = 1; mask < 1 << candidates.length; mask++) {
    const chosen = candidates.filter((_, bit) => (mask & (1 << bit)) !== 0);
    if (chosen.reduce((sum, word) => sum + (doubtOf(word)?.amount ?? 0), 0) !== bits) continue;
    const c = cost(chosen);
    if (
      best === undefined ||
      c[0] < best[0] ||
      (c[0] === best[0] && (c[1] < best[1] || (c[1] === best[1] && c[2] < best[2])))
    )
      best = c;
  }
  return best;
}

describe('withoutCheermotes, for any cheer', () => {
  const cheermote = fc
    .tuple(fc.constantFrom(...SURE, ...WORD_LIKE, ...UNKNOWN), fc.integer({ min: 1, max: 30 }))
    .map(([prefix, amount]) => `${prefix}${amount}`);
  const other = fc.oneof(
    fc.stringMatching(/^[a-z]{1,6}$/),
    fc.constantFrom('Cheer0', 'Cheer01', 'ps4x', '100', 'C-3PO', 'Cheer5!'),
  );
  const message = fc.array(fc.oneof(cheermote, other), { minLength: 1, maxLength: 10 });

  test('property: the removed words add up to the bits whenever some do, with the least doubt; a word without a cheermote shape stays; when none add up only the sure ones go', () => {
    fc.assert(
      fc.property(message, fc.integer({ min: 1, max: 120 }), (words, bits) => {
        const kept = withoutCheermotes(words.join(' '), bits)
          .split(' ')
          .filter((w) => w !== '');
        const gone = removed(words, kept);
        for (const word of gone) expect(doubtOf(word)).toBeDefined();
        const best = bestCost(words, bits);
        if (best !== undefined) {
          expect(gone.reduce((sum, word) => sum + (doubtOf(word)?.amount ?? 0), 0)).toBe(bits);
          expect(cost(gone)).toEqual(best);
        } else {
          expect(gone).toEqual(words.filter((word) => doubtOf(word)?.doubt === 0));
        }
      }),
      { numRuns: 300 },
    );
  });

  test('property: when nothing adds up, a message of words and Cheer<amount> loses only its Cheer<amount> words', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.integer({ min: 1, max: 999 }).map((amount) => `Cheer${amount}`),
            fc.stringMatching(/^[a-z]{1,6}\d{0,2}$/),
          ),
          { maxLength: 12 },
        ),
        (words) => {
          // More than every candidate together: no set adds up.
          const bits = 1 + words.reduce((sum, word) => sum + (doubtOf(word)?.amount ?? 0), 0);
          const kept = withoutCheermotes(words.join(' '), bits);
          expect(kept).toBe(words.filter((word) => !/^Cheer[1-9]\d*$/.test(word)).join(' '));
        },
      ),
    );
  });
});

describe('withoutCheermotes on a hostile cheer', () => {
  /** A 500-character line of word-like global cheermotes: no set of them makes 999 bits quickly. */
  const hostile = Array.from({ length: 86 }, (_, i) => `uni${(i % 50) + 1}`)
    .join(' ')
    .slice(0, 500);

  test('the search stores at most MAX_STATES states, one number each (was 50,000 objects: ~11 ms, up to 25 ms loaded)', () => {
    const sets = vi.spyOn(Map.prototype, 'set');
    let objects = 0;
    try {
      withoutCheermotes(hostile, 999);
      for (const [, value] of sets.mock.calls) if (typeof value === 'object') objects++;
      expect(sets.mock.calls.length).toBeLessThanOrEqual(MAX_STATES);
      expect(MAX_STATES).toBeLessThanOrEqual(10_000);
    } finally {
      sets.mockRestore();
    }
    expect(objects).toBe(0);
  });

  test('past the cap (the price of the bound), the line keeps its word-like cheermotes: only sure ones go', () => {
    expect(withoutCheermotes(hostile, 999)).toBe(
      hostile
        .split(' ')
        .filter((w) => w !== '')
        .join(' '),
    );
  });
});
