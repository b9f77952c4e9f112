/**
 * A cheer's text without its cheermotes (`Cheer100`, `Kappa50`, a channel's own `ronniHype10`):
 * they say how many bits were given, which the reader says once ("cheered 500 bits"), not
 * word by word. Pure.
 */

/**
 * Prefixes of Twitch's global cheermotes (compared without case). A channel's own cheermotes
 * (a partner's prefix) are not listed: they are found by the amounts adding up to the bits.
 */
export const GLOBAL_CHEERMOTES: ReadonlySet<string> = new Set(
  [
    'Cheer',
    'DoodleCheer',
    'BibleThump',
    'cheerwhal',
    'Corgo',
    'uni',
    'ShowLove',
    'Party',
    'SeemsGood',
    'Pride',
    'Kappa',
    'FrankerZ',
    'HeyGuys',
    'DansGame',
    'EleGiggle',
    'TriHard',
    'Kreygasm',
    '4Head',
    'SwiftRage',
    'NotLikeThis',
    'FailFish',
    'VoHiYo',
    'PJSalt',
    'MrDestructoid',
    'bday',
    'RIPCheer',
    'Shamrock',
    'BitBoss',
    'Streamlabs',
    'Muxy',
    'HolidayCheer',
    'Goal',
    'Anon',
    'Charity',
  ].map((prefix) => prefix.toLowerCase()),
);

/**
 * Global prefixes that are also words a person types with a number ("see you at party2", "my
 * goal1", "uni2"): taken for cheermotes only when the amounts say so, and after the others.
 */
const WORD_PREFIXES: ReadonlySet<string> = new Set([
  'uni',
  'party',
  'pride',
  'goal',
  'anon',
  'charity',
  'bday',
  'shamrock',
]);

/**
 * A word that can be a cheermote: a prefix ending in a letter, then an amount without a leading
 * zero. The prefix may hold digits (`4Head100`) only when it is a global one (see `withoutCheermotes`).
 */
const CHEERMOTE = /^([A-Za-z\d]*[A-Za-z])([1-9]\d{0,8})$/;

/** Most unknown-prefix words whose combinations are tried to make the amounts add up. */
const MAX_UNKNOWN_TRIED = 12;

/**
 * Most (word, amount left) states the search for the amounts visits, so one chat line costs
 * the event loop a few milliseconds at most: 10,000 states take ~2 ms (~10 ms on a loaded
 * 2-core machine; 50,000 took ~11 ms, up to 25 ms). Real cheers (a few cheermotes, or forty
 * `Cheer1`..`Cheer40` making 820) stay under it; past it the cheer is treated as one whose
 * amounts do not add up (see {@link withoutCheermotes}).
 */
export const MAX_STATES = 10_000;

/**
 * How sure a word is a cheermote: 0 a global prefix no one types with a number (`Cheer100`,
 * `Kappa50`), 1 a global prefix that is also a word (`party2`), 2 an unknown prefix (a
 * channel's own `ronniHype10`, or `mp3`).
 */
type Doubt = 0 | 1 | 2;

interface Candidate {
  readonly index: number;
  readonly amount: number;
  readonly doubt: Doubt;
}

/**
 * Which candidates are the cheermotes: Twitch's `bits` tag is the sum of the message's
 * cheermote amounts, so the set whose amounts add up to exactly `bits`; of several, the one with
 * the fewest unknown-prefix words, then the fewest word-like global ones (`party2`), then the
 * most sure ones (`Cheer10`: Twitch counts every one, so a set leaving one out has it read
 * aloud, and takes a typed word such as `mp20` in its place), then the leftmost (cheermotes
 * usually open a cheer, and the choice must be one). Undefined when no set adds up, or the
 * search passes {@link MAX_STATES}.
 *
 * A set's cost is one number, (unknown · base + word-like) · base − sure with base = n + 1, so
 * each visited state stores one number in the memo (no object per state) and the set is read
 * back from the memo afterwards: the cap bounds both the time and the memory of a cheer.
 */
function cheermotes(candidates: readonly Candidate[], bits: number): readonly number[] | undefined {
  const n = candidates.length;
  const base = n + 1;
  const weight = candidates.map((candidate) =>
    candidate.doubt === 2 ? base * base : candidate.doubt === 1 ? base : -1,
  );
  const after: number[] = new Array<number>(n + 1).fill(0);
  for (let i = n - 1; i >= 0; i--) after[i] = (after[i + 1] ?? 0) + (candidates[i]?.amount ?? 0);
  // Keys are unique: left <= bits, and bits <= after[0] (else the search stops at once).
  const memo = new Map<number, number>();
  let states = 0;
  // The least cost of a set among candidates[i…] adding up to `left`; NO_SET for none.
  const best = (i: number, left: number): number => {
    if (left === 0) return 0;
    const candidate = candidates[i];
    if (candidate === undefined || (after[i] ?? 0) < left) return NO_SET;
    const key = i * (bits + 1) + left;
    const known = memo.get(key);
    if (known !== undefined) return known;
    if (++states > MAX_STATES) throw new SearchTooLong();
    let found = NO_SET;
    if (candidate.amount <= left) {
      const rest = best(i + 1, left - candidate.amount);
      if (rest !== NO_SET) found = rest + (weight[i] ?? 0);
    }
    const without = best(i + 1, left);
    if (without < found) found = without;
    memo.set(key, found);
    return found;
  };
  try {
    if (best(0, bits) === NO_SET) return undefined;
  } catch (error) {
    if (error instanceof SearchTooLong) return undefined;
    throw error;
  }
  // Read the set back; equal costs keep the word: the set is then the leftmost. Every state
  // asked for here was visited above, so this reads the memo and visits nothing new.
  const indexes: number[] = [];
  for (let i = 0, left = bits; left > 0 && i < n; i++) {
    const candidate = candidates[i];
    if (candidate === undefined || candidate.amount > left) continue;
    const rest = best(i + 1, left - candidate.amount);
    if (rest !== NO_SET && rest + (weight[i] ?? 0) === best(i, left)) {
      indexes.push(candidate.index);
      left -= candidate.amount;
    }
  }
  return indexes;
}

/** The cost of no set: above every set's. */
const NO_SET = Number.POSITIVE_INFINITY;

/** The search for the amounts went past {@link MAX_STATES}. */
class SearchTooLong extends Error {}

/**
 * The text of a cheer of `bits` without its cheermote words, spaces tidied; undefined `bits`
 * (no cheer) leaves the text as it is: only a cheer's words are taken for cheermotes. The
 * words whose amounts add up to the bits go (see `cheermotes`); when none add up (Twitch's tag
 * and the text can disagree: a cheermote the channel renamed), only the words no one types
 * otherwise (`Cheer100`, `Kappa50`) go, so a real word is never lost.
 */
export function withoutCheermotes(text: string, bits: number | undefined): string {
  if (bits === undefined || bits <= 0) return text;
  const words = text.split(/\s+/).filter((word) => word !== '');
  const candidates: Candidate[] = [];
  let unknownTried = 0;
  words.forEach((word, index) => {
    const match = CHEERMOTE.exec(word);
    if (match === null) return;
    const prefix = (match[1] ?? '').toLowerCase();
    // Only a global prefix holds digits (`4Head`); `xbox360one2` is not a channel's cheermote.
    if (/\d/.test(prefix) && !GLOBAL_CHEERMOTES.has(prefix)) return;
    const doubt: Doubt = GLOBAL_CHEERMOTES.has(prefix) ? (WORD_PREFIXES.has(prefix) ? 1 : 0) : 2;
    if (doubt === 2 && ++unknownTried > MAX_UNKNOWN_TRIED) return;
    candidates.push({ index, amount: Number(match[2]), doubt });
  });
  const cut = new Set(
    cheermotes(candidates, bits) ??
      candidates.filter((candidate) => candidate.doubt === 0).map((candidate) => candidate.index),
  );
  return words.filter((_, index) => !cut.has(index)).join(' ');
}
