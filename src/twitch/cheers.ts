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

/** A word that can be a cheermote: letters, then an amount without a leading zero. */
const CHEERMOTE = /^([A-Za-z]+)([1-9]\d{0,8})$/;

/** Most unknown-prefix words whose combinations are tried to make the amounts add up. */
const MAX_UNKNOWN_TRIED = 12;

interface Candidate {
  readonly index: number;
  readonly amount: number;
  readonly known: boolean;
}

const sum = (words: readonly Candidate[]): number =>
  words.reduce((total, word) => total + word.amount, 0);

/**
 * Which candidates are the cheermotes: Twitch's `bits` tag is the sum of the message's
 * cheermote amounts. The global ones when they add up; else every candidate when all of them
 * do (a channel's own cheermotes); else the global ones with the fewest other candidates that
 * make the sum (an ordinary word such as `mp3` is left alone when it does not fit); failing
 * that, the global ones only.
 */
function cheermotes(candidates: readonly Candidate[], bits: number): readonly Candidate[] {
  const known = candidates.filter((c) => c.known);
  if (sum(known) === bits) return known;
  if (sum(candidates) === bits) return candidates;
  const unknown = candidates.filter((c) => !c.known).slice(0, MAX_UNKNOWN_TRIED);
  const needed = bits - sum(known);
  let best: Candidate[] | undefined;
  for (let mask = 1; mask < 1 << unknown.length; mask++) {
    const chosen = unknown.filter((_, bit) => (mask & (1 << bit)) !== 0);
    if (sum(chosen) === needed && (best === undefined || chosen.length < best.length))
      best = chosen;
  }
  return best === undefined ? known : [...known, ...best];
}

/**
 * The text of a cheer of `bits` without its cheermote words, spaces tidied; undefined `bits`
 * (no cheer) leaves the text as it is: only a cheer's words are taken for cheermotes.
 */
export function withoutCheermotes(text: string, bits: number | undefined): string {
  if (bits === undefined || bits <= 0) return text;
  const words = text.split(/\s+/).filter((word) => word !== '');
  const candidates: Candidate[] = [];
  words.forEach((word, index) => {
    const match = CHEERMOTE.exec(word);
    if (match === null) return;
    const known = GLOBAL_CHEERMOTES.has((match[1] ?? '').toLowerCase());
    candidates.push({ index, amount: Number(match[2]), known });
  });
  const cut = new Set(cheermotes(candidates, bits).map((c) => c.index));
  return words.filter((_, index) => !cut.has(index)).join(' ');
}
