/**
 * A quiet chat heard at once (issue 30): one message every 10–20 s in a read channel, each
 * timed from posted to its first voice packet at the fake voice server, on v2 (submit and
 * poll) and on v3 streaming, at real time; beside the naive client (submit, poll every second,
 * download, transcode) on the same texts in the v2 run, on its own key; and on v3 with the hold
 * of before (`READER_HOLD_QUIET_CHAT=on`). The three stacks run at the same time (30 messages
 * take about 7.5 minutes), so it is run by name: `--only quiet`.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { EmulatorOptions } from '../tools/emulator/index.ts';
import { setApiKey, startLocalStack } from '../tools/local-stack/index.ts';
import { seededRandom } from './chat-plan.ts';
import { benchUser } from './emulator-log.ts';
import { naiveGenerate } from './naive.ts';
import { formatMs, formatRatio, formatSummary, meets, type Row, summarize } from './stats.ts';
import { streamGenerationMs } from './v3.ts';

/** Sizes of the quiet-chat run. */
export interface QuietChatPlan {
  readonly messages: number;
  /** Gaps between messages, drawn uniformly (ms). */
  readonly minGapMs: number;
  readonly maxGapMs: number;
}

/** One message of the quiet chat: when it is posted (after the start), by whom, what it says. */
export interface QuietLine {
  readonly atMs: number;
  readonly member: string;
  readonly text: string;
}

/** The emulator's v3 stream pace, as in the v3 section: 200 ms of audio a frame, twice real time. */
const STREAM_CHUNK_MS = 200;
const STREAM_SPEED = 2;
const TONE_SECONDS_PER_CHAR = 0.06;

/** A seeded quiet chat: gaps drawn uniformly between the plan's bounds, texts of 20–60 characters. */
export function quietScript(plan: QuietChatPlan, seed = 30): QuietLine[] {
  const random = seededRandom(seed);
  const lines: QuietLine[] = [];
  let at = 1000;
  for (let i = 0; i < plan.messages; i++) {
    const words = `Message ${i} in a quiet chat, read as soon as it comes in please`;
    const length = 20 + Math.floor(random() * 41);
    lines.push({ atMs: at, member: `viewer${i % 5}`, text: words.slice(0, length).trim() });
    at += plan.minGapMs + random() * (plan.maxGapMs - plan.minGapMs);
  }
  return lines;
}

/**
 * Posted → first voice packet of each message, given when each was posted and the packets'
 * arrival times: the first packet at or after its posting and before the next message's
 * (NaN when none came: not heard).
 */
export function firstHeard(postedAt: readonly number[], arrivals: readonly number[]): number[] {
  return postedAt.map((posted, i) => {
    const next = postedAt[i + 1] ?? Number.POSITIVE_INFINITY;
    const first = arrivals.find((at) => at >= posted && at < next);
    return first === undefined ? Number.NaN : first - posted;
  });
}

/** What one API version's run measured. */
interface QuietRun {
  readonly heardMs: number[];
  /** Heard minus the generation time of the text spoken ("viewer0 said …"). */
  readonly overGenerationMs: number[];
  readonly naiveMs: number[];
}

/** Runs the quiet chat on v2 and on v3 streaming at once and returns its rows. */
export async function quietChatBench(plan: QuietChatPlan): Promise<Row[]> {
  const script = quietScript(plan);
  const [v2, v3, held] = await Promise.all([
    quietRun('v2', script),
    quietRun('v3', script),
    quietRun('v3', script, true),
  ]);
  const section = 'quiet';
  const v2s = summarize(v2.heardMs);
  const v3s = summarize(v3.heardMs);
  const helds = summarize(held.heardMs);
  const naive = summarize(v2.naiveMs);
  const over = summarize(v2.overGenerationMs);
  const gaps = `one message every ${plan.minGapMs / 1000}–${plan.maxGapMs / 1000} s, ${plan.messages} messages`;
  return [
    {
      section,
      measure: `quiet chat (${gaps}) on v2: posted → first audio heard (p50 / p95, n=${v2s.n}); naive: its transcode done`,
      ours: formatSummary(v2s),
      naive: formatSummary(naive),
      ratio: formatRatio(v2s.median, naive.median),
      target: '',
      met: undefined,
    },
    {
      section,
      measure:
        'the same on v2: heard − generation time of the spoken text (p50 / p95; generation = audio ÷ 2, 30 ms a character)',
      ours: formatSummary(over),
      naive: '',
      ratio: '',
      target: '≤ 0.5 s (p50)',
      met: meets(over.median, { max: 500 }),
    },
    {
      section,
      measure: `the same chat on v3 streaming (chunk ${STREAM_CHUNK_MS} ms, ${STREAM_SPEED}× real time): posted → first audio heard (p50 / p95, n=${v3s.n})`,
      ours: formatSummary(v3s),
      naive: formatSummary(naive),
      ratio: formatRatio(v3s.median, naive.median),
      target: `≤ ${formatMs(800)} (p50)`,
      met: meets(v3s.median, { max: 800 }),
    },
    {
      section,
      measure: `the same on v3 with every message held 1 s as before (READER_HOLD_QUIET_CHAT=on) (p50 / p95, n=${helds.n})`,
      ours: formatSummary(helds),
      naive: '',
      ratio: '',
      target: '',
      met: undefined,
    },
  ];
}

/** The quiet chat into a fresh stack on one API version (and, on v2, the naive client beside). */
async function quietRun(
  version: 'v2' | 'v3',
  script: readonly QuietLine[],
  holdQuietChat = false,
): Promise<QuietRun> {
  const user = benchUser(`quiet_${version}${holdQuietChat ? '_held' : ''}`);
  const naiveUser = benchUser(`quiet_naive_${version}`);
  const emulator: EmulatorOptions = {
    users: [user, naiveUser],
    generationMs: (_model, length) => streamGenerationMs(length),
    toneSecondsPerChar: TONE_SECONDS_PER_CHAR,
    streamChunkMs: STREAM_CHUNK_MS,
    streamSpeed: STREAM_SPEED,
  };
  const stack = await startLocalStack({
    emulator,
    api: version,
    env: {
      ...(version === 'v3' ? { TTS_STREAMING: 'on' } : {}),
      READER_HOLD_QUIET_CHAT: holdQuietChat ? 'on' : 'off',
    },
    discord: {
      extraUsers: [...new Set(script.map((line) => line.member))],
      guilds: [{ textChannels: ['general', 'chat'] }],
    },
  });
  const { discord, voiceServer } = stack;
  const guildId = discord.guild.id;
  const admin = (name: string, subcommand?: string, options: Record<string, string> = {}) =>
    discord
      .slash({ user: 'admin', name, ...(subcommand ? { subcommand } : {}), options })
      .waitForReply(20_000);
  try {
    await setApiKey(discord, user.apiKey);
    await admin('config', 'read-channel add', { channel: 'chat' });
    await admin('config', 'reader', { voices: 'default' });
    discord.moveMember({ userId: 'admin', channelId: discord.guild.voiceChannelId });
    const joined = await admin('join');
    if (!/Joined/.test(joined.content)) throw new Error(`/join answered "${joined.content}"`);
    voiceServer.reset(guildId);
    const channelId = discord.guild.channels.chat ?? '';
    const started = Date.now();
    const postedAt: number[] = [];
    const naive: Promise<number>[] = [];
    for (const line of script) {
      const wait = started + line.atMs - Date.now();
      if (wait > 0) await sleep(wait);
      postedAt.push(Date.now());
      discord.sendMessage({ user: line.member, channelId, content: line.text });
      if (version === 'v2' && !holdQuietChat)
        naive.push(naiveHeard(stack.emulator.baseUrl, naiveUser.apiKey, line));
    }
    // The last message's speech: its generation and a few seconds of audio.
    await sleep(8000);
    const arrivals = voiceServer.received(guildId).arrivals;
    const heard = firstHeard(postedAt, arrivals);
    const spokenMs = script.map((line) =>
      streamGenerationMs(`${line.member} said ${line.text}.`.length),
    );
    return {
      heardMs: heard.filter(Number.isFinite),
      overGenerationMs: heard.map((ms, i) => ms - (spokenMs[i] ?? 0)).filter(Number.isFinite),
      naiveMs: await Promise.all(naive),
    };
  } finally {
    await stack.stop();
  }
}

/** The naive client on one message: posted → its whole file transcoded (its first packet could go). */
async function naiveHeard(baseUrl: string, apiKey: string, line: QuietLine): Promise<number> {
  const posted = Date.now();
  const result = await naiveGenerate({
    baseUrl,
    apiKey,
    text: `${line.member} said ${line.text}`.padEnd(30, '.'),
    voiceId: 'am_2riuownnf',
    ffmpegPath: 'ffmpeg',
  });
  return (result.transcodedAt ?? result.deliveredAt) - posted;
}
