/**
 * Twitch chat (issue 18): the busy chat of `chat-plan.ts` (same messages, chatters, timing and
 * time scaling) posted in a channel of the fake Twitch server that a server reads, against the
 * same chat posted in a Discord read channel, with the same reader settings as `chat.ts`
 * (`voices: default`, the scaled max-age), one after the other in the same run.
 */
import { type BusyChatPlan, heardSummary, runBusyChat } from './busy-chat.ts';
import { busyChatRows } from './chat-rows.ts';
import { benchUser } from './emulator-log.ts';
import { formatMs, formatRatio, meets, oursRow, type Row } from './stats.ts';

/** How much slower than Discord's the Twitch chat's slowest message may be heard and still count as "the same freshness". */
const FRESHNESS_TOLERANCE = 1.1;

/** Runs the Twitch-chat benchmark and returns its rows. */
export async function twitchChatBench(plan: BusyChatPlan): Promise<Row[]> {
  const discord = await runBusyChat(
    plan,
    { source: 'discord', version: 'v2' },
    benchUser('twitch_discord_bot'),
  );
  const twitch = await runBusyChat(
    plan,
    { source: 'twitch', version: 'v2' },
    benchUser('twitch_twitch_bot'),
  );
  const scale = plan.timeScale;
  const slowest = { twitch: heardSummary(twitch).slowest, discord: heardSummary(discord).slowest };
  const section = 'Twitch chat';
  return [
    ...busyChatRows(section, 'Twitch', twitch, plan.chatMs),
    ...busyChatRows(section, 'the same chat on Discord', discord, plan.chatMs),
    oursRow(
      section,
      'slowest message heard, Twitch ÷ Discord (unscaled)',
      `${formatRatio(slowest.twitch, slowest.discord)} (${formatMs(slowest.twitch / scale)} vs ${formatMs(slowest.discord / scale)})`,
      {
        text: `≤ ${FRESHNESS_TOLERANCE}× (the same freshness)`,
        met: meets(slowest.twitch / slowest.discord, { max: FRESHNESS_TOLERANCE }),
      },
    ),
    oursRow(section, 'Twitch: responses 429', String(twitch.refusals), {
      text: '0',
      met: meets(twitch.refusals, { max: 0 }),
    }),
  ];
}
