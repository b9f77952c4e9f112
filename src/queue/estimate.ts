/** When a queued request will likely start: pure arithmetic over expected playing times. */

/** What the estimate needs: the item playing now, and the expected length of each item ahead. */
export interface WaitInput {
  readonly now: number;
  /** The item playing: when it started and how long it should last; absent when none plays. */
  readonly playing?: { readonly startedAt: number; readonly expectedMs: number } | undefined;
  /** Expected playing times of the pending items that go first, in order. */
  readonly aheadMs: readonly number[];
}

/**
 * When the next item would start: once the one playing ends (never in the past) and each
 * item ahead has played. An estimate: generation time and pauses are not counted.
 */
export function estimateStart({ now, playing, aheadMs }: WaitInput): number {
  const playingLeft =
    playing === undefined ? 0 : Math.max(0, playing.startedAt + playing.expectedMs - now);
  return now + playingLeft + aheadMs.reduce((sum, ms) => sum + Math.max(0, ms), 0);
}

/** About how fast synthetic speech goes at speed 1 (150 words a minute). */
export const SPOKEN_CHARACTERS_PER_SECOND = 15;

/** How long `characters` of text should take to speak at `speed`: for estimates only. */
export function expectedSpeechMs(characters: number, speed = 1): number {
  return Math.round((characters / SPOKEN_CHARACTERS_PER_SECOND / speed) * 1000);
}
