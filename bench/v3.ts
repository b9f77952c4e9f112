/**
 * v3 (issue 21): the same `/say` voice items one at a time on a v2 stack (submit and poll) and
 * on a v3 stack (streaming over the WebSocket), timed from the interaction sent to the first
 * voice packet at the fake voice server, on the same generation time; then the busy chat on
 * v3 streaming (its turns streamed too, as the emulator's records show), with its refusals and
 * the most jobs that ran at once against the cap.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { EmulatorOptions } from '../tools/emulator/index.ts';
import { type LocalStack, setApiKey, startLocalStack } from '../tools/local-stack/index.ts';
import { type BusyChatPlan, runBusyChat } from './busy-chat.ts';
import { busyChatRows } from './chat-rows.ts';
import { benchText, benchUser } from './emulator-log.ts';
import {
  formatNumber,
  formatRatio,
  formatSummary,
  meets,
  oursRow,
  type Row,
  summarize,
} from './stats.ts';

/** Sizes of the v3 runs. */
export interface V3Plan {
  readonly warmUp: number;
  readonly voice: number;
  readonly chat: BusyChatPlan;
  /** The key's concurrent-job cap in the busy chat (the bot's default, the smallest plan's). */
  readonly concurrentJobs: number;
}

/** The emulator's v3 stream pace (its defaults): 200 ms of audio a frame, twice real time. */
const STREAM_CHUNK_MS = 200;
const STREAM_SPEED = 2;
/** Seconds of tone per character (the emulator's default, like speech). */
const TONE_SECONDS_PER_CHAR = 0.06;

/**
 * Generation time of a text on both stacks: the time the v3 stream takes to send its audio
 * (the tone's length over the stream speed), so v2's job takes as long as v3's stream.
 * For the bench's 40–70 characters it is 1.2–2.1 s, near v2's 800 ms + 15 ms a character.
 */
export function streamGenerationMs(textLength: number): number {
  return (Math.max(200, textLength * TONE_SECONDS_PER_CHAR * 1000) / STREAM_SPEED) | 0;
}

/** Runs the v3 benchmark and returns its rows. */
export async function v3Bench(plan: V3Plan): Promise<Row[]> {
  const v2 = await firstPackets('v2', plan);
  const v3 = await firstPackets('v3', plan);
  const v2s = summarize(v2);
  const v3s = summarize(v3);
  const ratio = v3s.median / v2s.median;
  const chatUser = benchUser('v3_chat_bot');
  const chat = await runBusyChat(
    plan.chat,
    { source: 'discord', version: 'v3', concurrentJobs: plan.concurrentJobs },
    chatUser,
  );
  const section = 'v3';
  const streamed = chat.via?.stream ?? Number.NaN;
  return [
    oursRow(
      section,
      `/say voice one at a time, v2 submit-and-poll: submit → first voice packet (median / p95, n=${v2s.n})`,
      formatSummary(v2s),
    ),
    oursRow(
      section,
      `the same on v3 streaming (chunk ${STREAM_CHUNK_MS} ms, ${STREAM_SPEED}× real time; both: generation = audio ÷ ${STREAM_SPEED}, 30 ms a character) (n=${v3s.n})`,
      formatSummary(v3s),
    ),
    oursRow(
      section,
      'v3 streaming ÷ v2 submit-and-poll, submit → first voice packet (median; p95)',
      `${formatRatio(v3s.median, v2s.median)}; ${formatRatio(v3s.p95, v2s.p95)}`,
      { text: '≤ 0.5×', met: meets(ratio, { max: 0.5 }) },
    ),
    ...busyChatRows(section, 'busy chat on v3 streaming', chat, plan.chat.chatMs),
    oursRow(
      section,
      'busy chat on v3 streaming: chat turns streamed; submitted and polled instead (emulator’s records: `via`)',
      `${streamed} of ${chat.generations}; ${chat.via?.http ?? Number.NaN}`,
      { text: 'all streamed', met: chat.generations > 0 && streamed === chat.generations },
    ),
    oursRow(
      section,
      'busy chat on v3 streaming: responses 429; streams refused (close 1008)',
      `${chat.refusals - chat.refusedStreams}; ${chat.refusedStreams}`,
      { text: '0; 0', met: meets(chat.refusals, { max: 0 }) },
    ),
    oursRow(
      section,
      `busy chat on v3 streaming: most jobs of the key running at once (emulator’s records; cap ${plan.concurrentJobs}, emulator and bot)`,
      formatNumber(chat.maxJobs ?? Number.NaN),
      {
        text: `≤ ${plan.concurrentJobs}`,
        met: meets(chat.maxJobs ?? Number.NaN, { max: plan.concurrentJobs }),
      },
    ),
  ];
}

/** Submit → first voice packet of `plan.voice` `/say` voice items one at a time on one API version. */
async function firstPackets(version: 'v2' | 'v3', plan: V3Plan): Promise<number[]> {
  const user = benchUser(`v3_say_${version}`);
  const emulator: EmulatorOptions = {
    users: [user],
    generationMs: (_model, length) => streamGenerationMs(length),
    toneSecondsPerChar: TONE_SECONDS_PER_CHAR,
    streamChunkMs: STREAM_CHUNK_MS,
    streamSpeed: STREAM_SPEED,
  };
  const env: Record<string, string> = version === 'v3' ? { TTS_STREAMING: 'on' } : {};
  const stack = await startLocalStack({ emulator, env, api: version });
  try {
    await setApiKey(stack.discord, user.apiKey);
    const { discord } = stack;
    discord.moveMember({ userId: 'member', channelId: discord.guild.voiceChannelId });
    await sleep(200);
    const joined = await discord.slash({ user: 'member', name: 'join' }).waitForReply(20_000);
    if (!/Joined/.test(joined.content)) throw new Error(`/join answered "${joined.content}"`);
    const times: number[] = [];
    for (let i = 0; i < plan.warmUp + plan.voice; i++) {
      const ms = await sayOnce(stack, benchText(40 + (i % 4) * 10, i));
      if (i >= plan.warmUp) times.push(ms);
    }
    return times;
  } finally {
    await stack.stop();
  }
}

/** One `/say` voice item: the interaction sent → its first voice packet, once it has played. */
async function sayOnce(stack: LocalStack, text: string): Promise<number> {
  const { discord, voiceServer } = stack;
  const guildId = discord.guild.id;
  voiceServer.reset(guildId);
  const sentAt = Date.now();
  const handle = discord.slash({ user: 'member', name: 'say', options: { text, output: 'voice' } });
  await handle.waitFor(
    (event) => event.kind === 'edit' && /Played|failed|could not/i.test(JSON.stringify(event.data)),
    60_000,
  );
  const first = voiceServer.received(guildId).arrivals[0];
  if (first === undefined) throw new Error(`no voice packet for "${text.slice(0, 20)}…"`);
  return first - sentAt;
}
