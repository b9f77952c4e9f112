/**
 * Busy chat: 300 messages in 5 minutes from 20 members in a read channel, read aloud by the
 * chat reader (streamer mode). Not built yet: the chat reader reached main after this
 * benchmark was written; until then the row says so instead of a figure.
 */
import type { Row } from './stats.ts';

/** The busy-chat rows: a placeholder until this benchmark drives the chat reader. */
export async function chatBench(_options: { readonly quick: boolean }): Promise<Row[]> {
  return [
    {
      section: 'Busy chat',
      measure:
        '300 messages / 5 min / 20 members: drain time, stale share, generations, 429s (vs one generation per message)',
      ours: 'not measured yet (the chat reader landed after this benchmark was written)',
      naive: '',
      ratio: '',
      target: 'drained ≤ 6 min, 0 × 429',
      met: undefined,
    },
  ];
}
