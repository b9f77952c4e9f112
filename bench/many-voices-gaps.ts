/**
 * Gaps between audible packets inside spoken items, for the many-voices bench: a server's
 * arrivals are cut into its items near their expected packet counts, and the pauses between
 * items (where the next item starts, after its own generation) are left out.
 */

/** Packets either side of an expected item boundary searched for the pause between items. */
const BOUNDARY_SLACK = 3;
/**
 * The search widens with the boundary's position: decoded audio may be a little longer than the
 * text's expected length (an MP3 decodes to about 5 packets more per item), and that adds up.
 */
const BOUNDARY_DRIFT = 0.06;

/**
 * Gaps (ms) between consecutive arrivals that fall inside one of the items (`itemPackets` each).
 * Near each expected boundary the longest gap is taken as the pause between the two items.
 */
export function gapsInside(arrivals: readonly number[], itemPackets: readonly number[]): number[] {
  const gaps: number[] = [];
  for (let i = 1; i < arrivals.length; i++) gaps.push((arrivals[i] ?? 0) - (arrivals[i - 1] ?? 0));
  // gaps[k] is the gap before arrival k + 1.
  const pauses = new Set<number>();
  let total = 0;
  for (const packets of itemPackets.slice(0, -1)) {
    total += packets;
    const slack = BOUNDARY_SLACK + Math.ceil(total * BOUNDARY_DRIFT);
    const from = Math.max(0, Math.round(total) - 1 - slack);
    const to = Math.min(gaps.length - 1, Math.round(total) - 1 + slack);
    let longest = -1;
    for (let k = from; k <= to; k++) {
      if (!pauses.has(k) && (longest === -1 || (gaps[k] ?? 0) > (gaps[longest] ?? 0))) longest = k;
    }
    if (longest !== -1) pauses.add(longest);
  }
  return gaps.filter((_, k) => !pauses.has(k));
}
