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

/** A word that can be a cheermote: letters, then an amount without a leading zero. */
const CHEERMOTE = /^([A-Za-z]+)([1-9]\d{0,8})$/;

/** Most unknown-prefix words whose combinations are tried to make the amounts add up. */
const MAX_UNKNOWN_TRIED = 12;

/**
 * Most (word, amount left) states the search for the amounts visits: 40 candidates of a
 * 500-bit cheer stay far under it; past it the cheer is treated as one whose amounts do not
 * add up (see {@link withoutCheermotes}).
 */
const MAX_STATES = 50_000;

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

/** A chosen set of candidates, as a list from the leftmost, with what it costs. */
interface Chosen {
  /** Unknown-prefix words, word-like global ones, then words in all. */
  readonly cost: readonly [number, number, number];
  readonly first: number;
  readonly rest: Chosen | undefined;
}

const NONE: Chosen = { cost: [0, 0, 0], first: -1, rest: undefined };

const better = (a: Chosen, b: Chosen): boolean =>
  a.cost[0] !== b.cost[0]
    ? a.cost[0] < b.cost[0]
    : a.cost[1] !== b.cost[1]
      ? a.cost[1] < b.cost[1]
      : a.cost[2] < b.cost[2];

/**
 * Which candidates are the cheermotes: Twitch's `bits` tag is the sum of the message's
 * cheermote amounts, so the set whose amounts add up to exactly `bits`; of several, the one with
 * the fewest unknown-prefix words, then the fewest word-like global ones (`party2`), then the
 * fewest words, then the leftmost (cheermotes usually open a cheer, and the choice must be one).
 * Undefined when no set adds up, or the search passes {@link MAX_STATES}.
 */
function cheermotes(candidates: readonly Candidate[], bits: number): readonly number[] | undefined {
  const n = candidates.length;
  const after: number[] = new Array<number>(n + 1).fill(0);
  for (let i = n - 1; i >= 0; i--) after[i] = (after[i + 1] ?? 0) + (candidates[i]?.amount ?? 0);
  const memo = new Map<number, Chosen | null>();
  let states = 0;
  // The best set among candidates[i…] adding up to `left`; null for none.
  const best = (i: number, left: number): Chosen | null => {
    if (left === 0) return NONE;
    const candidate = candidates[i];
    if (candidate === undefined || (after[i] ?? 0) < left) return null;
    const key = i * (bits + 1) + left;
    const known = memo.get(key);
    if (known !== undefined) return known;
    if (++states > MAX_STATES) throw new SearchTooLong();
    let found: Chosen | null = null;
    if (candidate.amount <= left) {
      const rest = best(i + 1, left - candidate.amount);
      if (rest !== null) {
        const [unknown, wordLike, size] = rest.cost;
        found = {
          cost: [
            unknown + (candidate.doubt === 2 ? 1 : 0),
            wordLike + (candidate.doubt === 1 ? 1 : 0),
            size + 1,
          ],
          first: i,
          rest: rest === NONE ? undefined : rest,
        };
      }
    }
    // Equal costs keep the set with this word: it is the leftmost.
    const without = best(i + 1, left);
    if (without !== null && (found === null || better(without, found))) found = without;
    memo.set(key, found);
    return found;
  };
  let chosen: Chosen | null;
  try {
    chosen = best(0, bits);
  } catch (error) {
    if (error instanceof SearchTooLong) return undefined;
    throw error;
  }
  if (chosen === null) return undefined;
  const indexes: number[] = [];
  for (let link: Chosen | undefined = chosen; link !== undefined; link = link.rest)
    if (link !== NONE) indexes.push(candidates[link.first]?.index ?? -1);
  return indexes;
}

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
