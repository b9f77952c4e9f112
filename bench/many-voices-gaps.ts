/**
 * Gaps between audible packets inside spoken items, for the many-voices bench: a server's
 * arrivals are cut into its items by their expected packet counts, and the pauses between
 * items (where the next item starts) are left out.
 */

/** Packets either side of an expected item boundary whose gap is not counted (counts are approximate). */
const BOUNDARY_SLACK = 3;

/** Gaps (ms) between consecutive arrivals that fall inside one of the items (`itemPackets` each). */
export function gapsInside(arrivals: readonly number[], itemPackets: readonly number[]): number[] {
  const boundaries: number[] = [];
  let total = 0;
  for (const packets of itemPackets.slice(0, -1)) {
    total += packets;
    boundaries.push(Math.round(total));
  }
  const gaps: number[] = [];
  for (let i = 1; i < arrivals.length; i++) {
    if (boundaries.some((b) => Math.abs(i - b) <= BOUNDARY_SLACK)) continue;
    gaps.push((arrivals[i] ?? 0) - (arrivals[i - 1] ?? 0));
  }
  return gaps;
}
