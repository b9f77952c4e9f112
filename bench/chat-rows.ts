/** Rows of a busy-chat run (`busy-chat.ts`), shared by the Twitch and v3 sections. */
import type { BusyChatResult } from './busy-chat.ts';
import { heardSummary } from './busy-chat.ts';
import { formatMs, formatNumber, meets, oursRow, type Row } from './stats.ts';

/** The issue's drain target: a minute after the chat ends, unscaled (as chat.ts). */
const DRAIN_AFTER_CHAT_MS = 60_000;

/** Drain, read/dropped, generations and freshness rows of one run, time given unscaled. */
export function busyChatRows(
  section: string,
  label: string,
  result: BusyChatResult,
  chatMs: number,
): Row[] {
  const scale = result.minuteMs / 60_000;
  const share = (n: number) => `${formatNumber((100 * n) / result.messages, 0)} %`;
  const heard = heardSummary(result);
  // Heard delays are reported unscaled, as a real chat would feel them.
  const unscaled = (ms: number) => formatMs(ms / scale);
  return [
    oursRow(
      section,
      `${label}: ${result.messages} messages / ${formatNumber(chatMs / 60_000)} min (minute = ${result.minuteMs / 1000} s, max-age ${formatNumber(result.maxAgeMs / scale / 1000)} s): drained (last audio) after`,
      `${formatNumber(result.drainMs / result.minuteMs, 1)} min`,
      {
        text: `≤ ${formatNumber((chatMs + DRAIN_AFTER_CHAT_MS) / 60_000)} min`,
        met: meets(result.drainMs / scale, { max: chatMs + DRAIN_AFTER_CHAT_MS }),
      },
    ),
    oursRow(
      section,
      `${label}: messages read aloud; dropped as stale (the bot’s count); generations used`,
      `${result.read} (${share(result.read)}); ${result.droppedStale} (${share(result.droppedStale)}); ${result.generations}`,
    ),
    oursRow(
      section,
      `${label}: posted → heard, messages read (median / p95 / slowest, unscaled; n=${result.heardMs.length}${result.unpaired === 0 ? '' : `, ${result.unpaired} items unpaired`})`,
      `${unscaled(heard.median)} / ${unscaled(heard.p95)} / ${unscaled(heard.slowest)}`,
    ),
  ];
}
