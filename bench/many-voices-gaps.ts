/**
 * Gaps between audible packets inside spoken items, for the many-voices bench: a server's
 * arrivals are cut into its items near their expected packet counts, and the pauses between
 * items (where the next item starts, after its own generation) are left out.
 */

/** Packets either side of an expected item boundary searched for the pause between items, at least. */
const BOUNDARY_SLACK = 3;
/**
 * And a share of the item before it: an item may be heard a little longer than its text's length
 * (an MP3 decodes to about 5 packets more) or shorter (a player that stops an item after a stall).
 */
const ITEM_SLACK = 0.2;
/**
 * The longest gap near a boundary is a pause only when it is longer than a stutter's threshold:
 * otherwise the next item was ready and ran on at once, and the longest of those near-20 ms gaps
 * (the receiver's jitter) says nothing of where the boundary was.
 */
const PAUSE_MS = 60;

/**
 * Gaps (ms) between consecutive arrivals that fall inside one of the items (`itemPackets` each).
 * Each item is expected to end `itemPackets` after the pause found before it; the longest gap
 * near there is taken as the pause between the two items. One gap per boundary is left out, so
 * a stutter mistaken for the pause still counts, as the pause then does.
 */
export function gapsInside(arrivals: readonly number[], itemPackets: readonly number[]): number[] {
  return gapsInsideAt(arrivals, itemPackets).map((gap) => gap.ms);
}

/** A gap inside an item: how long, and the arrival time of the packet that ended it. */
export interface Gap {
  readonly ms: number;
  readonly endedAt: number;
}

/** {@link gapsInside}, each gap with the arrival that ended it (to set beside the receiver's stalls). */
export function gapsInsideAt(arrivals: readonly number[], itemPackets: readonly number[]): Gap[] {
  const gaps: number[] = [];
  for (let i = 1; i < arrivals.length; i++) gaps.push((arrivals[i] ?? 0) - (arrivals[i - 1] ?? 0));
  // gaps[k] comes before arrival k + 1: the pause before an item starting at arrival b is gaps[b - 1].
  const pauses = new Set<number>();
  let start = 0;
  for (const packets of itemPackets.slice(0, -1)) {
    const center = Math.round(start + packets) - 1;
    const slack = BOUNDARY_SLACK + Math.ceil(packets * ITEM_SLACK);
    let longest = -1;
    for (let k = Math.max(0, center - slack); k <= Math.min(gaps.length - 1, center + slack); k++) {
      if (!pauses.has(k) && (longest === -1 || (gaps[k] ?? 0) > (gaps[longest] ?? 0))) longest = k;
    }
    if (longest === -1) break; // the rest of the items was not heard
    pauses.add(longest);
    // No pause heard: the next item is looked for from where this one was expected to end.
    start = (gaps[longest] ?? 0) > PAUSE_MS ? longest + 1 : center + 1;
  }
  return gaps.flatMap((ms, k) => (pauses.has(k) ? [] : [{ ms, endedAt: arrivals[k + 1] ?? 0 }]));
}
