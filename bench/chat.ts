/**
 * Busy chat: 300 messages in 5 minutes from 20 members in a read channel, read aloud by the
 * chat reader (streamer mode). Pending until streamer mode is on the branch: the row says so.
 */
import type { Row } from './stats.ts';

/** The busy-chat rows; "pending" until the chat reader exists. */
export async function chatBench(_options: { readonly quick: boolean }): Promise<Row[]> {
  return [
    {
      section: 'Busy chat',
      measure:
        '300 messages / 5 min / 20 members: drain time, stale share, generations, 429s (vs one generation per message)',
      ours: 'pending streamer mode',
      naive: '',
      ratio: '',
      target: 'drained ≤ 6 min, 0 × 429',
      met: undefined,
    },
  ];
}
