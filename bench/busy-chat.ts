/**
 * The busy chat of `chat-plan.ts` played into a bot on the local stack, from a Discord read
 * channel or a Twitch channel of the fake Twitch server, on the v2 or the v3 API: the shell
 * shared by the Twitch and v3 rows. It repeats the reader setup and the drain wait of
 * `chat.ts` (left alone while it changes; to be merged later) and adds when each message was
 * heard, v3 refusals and the jobs that ran at once.
 */

import { setTimeout as sleep } from 'node:timers/promises';
import { readerSettingsSchema } from '../src/store/index.ts';
import { FakeTwitch } from '../test/fake-twitch/index.ts';
import type { EmulatorOptions, EmulatorUser } from '../tools/emulator/index.ts';
import { type LocalStack, setApiKey, startLocalStack } from '../tools/local-stack/index.ts';
import { heardDelays, maxConcurrent, pairItems } from './chat-heard.ts';
import { chatScript, messagesRead } from './chat-plan.ts';
import { count429, downloadedTexts, polledGenerations } from './emulator-log.ts';
import { summarize } from './stats.ts';

/** Sizes of a busy-chat run, as `chat.ts` takes them. */
export interface BusyChatPlan {
  readonly messages: number;
  readonly members: number;
  /** How long the chat lasts, in unscaled ms. */
  readonly chatMs: number;
  /** Emulated minute as a share of a real one. */
  readonly timeScale: number;
}

/** Where the chat comes from and which API the bot speaks. */
export interface BusyChatSetup {
  readonly source: 'discord' | 'twitch';
  readonly version: 'v2' | 'v3';
  /** v3 only: the key's cap on concurrent jobs, for the bot and the emulator alike. */
  readonly concurrentJobs?: number;
  /** v3 only: the server's daily budget in US dollars (`/config limits daily-budget`). */
  readonly dailyBudgetUsd?: number;
}

/** What one busy-chat run measured. */
export interface BusyChatResult {
  readonly messages: number;
  readonly minuteMs: number;
  readonly maxAgeMs: number;
  /** The first message → the last voice packet, in ms. */
  readonly drainMs: number;
  readonly read: number;
  readonly droppedStale: number;
  readonly generations: number;
  /** 429 answers, plus v3 streams refused (close 1008: over the allowance or the job cap). */
  readonly refusals: number;
  /** Posted → heard (its item's first audio) of the messages read, in ms. */
  readonly heardMs: readonly number[];
  /** Generations of the bot's key and speech starts that could not be paired (0 when they agree). */
  readonly unpaired: number;
  /** v3: the most generations of the bot's key running at one moment. */
  readonly maxJobs: number | undefined;
  /** v3: generations streamed over the WebSocket, and submitted and polled (`POST /v3/tts`). */
  readonly via: { readonly stream: number; readonly http: number } | undefined;
  /** v3: streams refused (close 1008: over the allowance or the job cap); counted in `refusals` too. */
  readonly refusedStreams: number;
  /** v3: micro-dollars the emulator billed the key (generations it did not give back). */
  readonly billedMicros: number | undefined;
  /** v3: the admin's `/usage` summary once the chat was read out (the money lines). */
  readonly usage: string | undefined;
}

/** Seconds of tone per character in the emulator's audio at full time, like speech (as chat.ts). */
const TONE_SECONDS_PER_CHAR = 0.06;
/** The Twitch channel the bench reads. */
const TWITCH_CHANNEL = 'benchstreamer';

/** Plays the busy chat into a fresh local stack and measures it; stops everything it started. */
export async function runBusyChat(
  plan: BusyChatPlan,
  setup: BusyChatSetup,
  botUser: EmulatorUser,
): Promise<BusyChatResult> {
  const scale = plan.timeScale;
  const minuteMs = 60_000 * scale;
  const members = Array.from({ length: plan.members }, (_, i) => `viewer${i}`);
  const maxAgeMs = Math.max(5000, Math.round(readerSettingsSchema.parse({}).maxAgeMs * scale));
  const jobs = setup.concurrentJobs ?? 5;
  const twitch = setup.source === 'twitch' ? await FakeTwitch.start() : undefined;
  const emulator: EmulatorOptions = {
    users: [botUser],
    timeScale: scale,
    generationMs: (_model, length) => (800 + 15 * length) * scale,
    toneSecondsPerChar: TONE_SECONDS_PER_CHAR * scale,
    maxLogEntries: 200_000,
    streamChunkMs: 200 * scale,
    // The smallest plan's allowance and the job cap the bot is told, so a job over it is refused.
    v3Limits: { paid: { perMinute: 120, concurrent: jobs } },
  };
  const v2Limits = `generate=20/${minuteMs}ms+500/${Math.round(86_400_000 * scale)}ms,status=60/${minuteMs}ms,voices=10/${minuteMs}ms,health=100/${minuteMs}ms`;
  const env: Record<string, string> =
    setup.version === 'v3'
      ? {
          TTS_STREAMING: 'on',
          TTS_CONCURRENT_JOBS: String(jobs),
          TTS_LIMITS: `request=120/${minuteMs}ms`,
        }
      : { TTS_LIMITS: v2Limits };
  let stack: LocalStack | undefined;
  try {
    stack = await startLocalStack({
      emulator,
      api: setup.version,
      discord: { extraUsers: members, guilds: [{ textChannels: ['general', 'chat'] }] },
      env: { ...env, ...(twitch === undefined ? {} : { TWITCH_CHAT_URL: twitch.url }) },
    });
    const { discord, voiceServer } = stack;
    const guildId = discord.guild.id;
    const admin = (
      name: string,
      subcommand?: string,
      options: Record<string, string | number> = {},
    ) =>
      discord
        .slash({ user: 'admin', name, ...(subcommand ? { subcommand } : {}), options })
        .waitForReply(20_000);
    await setApiKey(discord, botUser.apiKey);
    if (twitch === undefined) {
      await admin('config', 'read-channel add', { channel: 'chat' });
    } else {
      await admin('config', 'twitch add', { channel: TWITCH_CHANNEL });
      const deadline = Date.now() + 20_000;
      while (!twitch.joined(TWITCH_CHANNEL)) {
        if (Date.now() > deadline) throw new Error('the bot did not join the Twitch chat');
        await sleep(50);
      }
    }
    // The Discord busy chat's settings (chat.ts): one voice for everyone, the scaled max-age.
    await admin('config', 'reader', {
      'max-age': `${Math.round(maxAgeMs / 1000)}s`,
      voices: 'default',
    });
    if (setup.dailyBudgetUsd !== undefined)
      await admin('config', 'limits', { 'daily-budget': setup.dailyBudgetUsd });
    discord.moveMember({ userId: 'admin', channelId: discord.guild.voiceChannelId });
    const joined = await admin('join');
    if (!/Joined/.test(joined.content)) throw new Error(`/join answered "${joined.content}"`);
    stack.emulator.reset();
    voiceServer.reset(guildId);

    const script = chatScript({
      messages: plan.messages,
      members: plan.members,
      durationMs: plan.chatMs * scale,
    });
    const chatChannel = discord.guild.channels.chat ?? '';
    const postedAt: number[] = [];
    const started = Date.now();
    for (const line of script) {
      const wait = started + line.atMs - Date.now();
      if (wait > 0) await sleep(wait);
      const member = line.member;
      postedAt[line.index] = Date.now();
      if (twitch === undefined) {
        discord.sendMessage({
          user: members[member] ?? 'member',
          channelId: chatChannel,
          content: line.text,
        });
      } else {
        twitch.post(TWITCH_CHANNEL, {
          id: `bench-${line.index}`,
          login: members[member] ?? 'viewer',
          userId: String(5000 + member),
          text: line.text,
        });
      }
    }
    const drained = await waitUntilDrained(stack, started, 25 * minuteMs);
    const usage =
      setup.version === 'v3'
        ? await discord.slash({ user: 'admin', name: 'usage' }).waitForReply(20_000)
        : undefined;
    const summary = (usage?.embeds as { description?: string }[] | undefined)?.[0]?.description;
    return measure(stack, setup, botUser, {
      usage: summary,
      messages: plan.messages,
      minuteMs,
      maxAgeMs,
      started,
      postedAt,
      ...drained,
    });
  } finally {
    await stack?.stop();
    await twitch?.close();
  }
}

function measure(
  stack: LocalStack,
  setup: BusyChatSetup,
  botUser: EmulatorUser,
  run: {
    messages: number;
    minuteMs: number;
    maxAgeMs: number;
    started: number;
    postedAt: readonly number[];
    lastPacketAt: number;
    droppedStale: number;
    usage: string | undefined;
  },
): BusyChatResult {
  const { emulator, voiceServer, discord } = stack;
  const log = emulator.requests;
  const v3 = setup.version === 'v3' ? emulator.v3.generationsOf(botUser.userId) : undefined;
  // Generations in the order they were made: the order the bot speaks them.
  const texts =
    v3 === undefined
      ? polledGenerations(log, [botUser])
          .map((id) => emulator.generation(id))
          .filter((g) => g !== undefined)
          .sort((a, b) => a.createdAt - b.createdAt)
          .map((g) => g.text)
      : [...v3].sort((a, b) => a.createdAt - b.createdAt).map((g) => g.text);
  const read =
    v3 === undefined
      ? messagesRead(downloadedTexts(emulator, botUser.userId))
      : messagesRead(texts);
  const starts = voiceServer
    .received(discord.guild.id)
    .speaking.filter((event) => event.speaking !== 0)
    .map((event) => event.at);
  const paired = pairItems(texts, starts);
  const heard = heardDelays(run.postedAt, paired.items);
  const streamRefusals = log.filter(
    (e) =>
      e.endpoint === 'WS /v3/tts/stream' && e.userId === botUser.userId && e.closeCode === 1008,
  ).length;
  return {
    messages: run.messages,
    minuteMs: run.minuteMs,
    maxAgeMs: run.maxAgeMs,
    drainMs: run.lastPacketAt - run.started,
    read: read.size,
    droppedStale: run.droppedStale,
    generations: texts.length,
    refusals: count429(log, [botUser]) + streamRefusals,
    heardMs: [...heard.values()],
    unpaired: paired.unpaired,
    maxJobs:
      v3 === undefined
        ? undefined
        : maxConcurrent(v3.map((g) => ({ start: g.createdAt, end: g.completedAt }))),
    via:
      v3 === undefined
        ? undefined
        : {
            stream: v3.filter((g) => g.via === 'stream').length,
            http: v3.filter((g) => g.via === 'http').length,
          },
    refusedStreams: streamRefusals,
    billedMicros: v3
      ?.filter((g) => g.status !== 'FAILED')
      .reduce((sum, g) => sum + Math.round(g.dollarCost * 1_000_000), 0),
    usage: run.usage,
  };
}

/** Median, p95 and slowest of the posted → heard delays, in ms. */
export function heardSummary(result: BusyChatResult): {
  median: number;
  p95: number;
  slowest: number;
} {
  const summary = summarize(result.heardMs);
  return { median: summary.median, p95: summary.p95, slowest: Math.max(...result.heardMs) };
}

/**
 * Waits until the chat is read out: nothing queued or waiting in the reader (asked with
 * `/queue`) and no voice packet for a second; then the last packet's time and the bot's count
 * of messages dropped as stale and heard in a chorus. Shared by every busy-chat section.
 */
export async function waitUntilDrained(
  stack: LocalStack,
  started: number,
  timeoutMs: number,
): Promise<{ lastPacketAt: number; droppedStale: number; collapsed: number }> {
  const { discord, voiceServer } = stack;
  const guildId = discord.guild.id;
  for (;;) {
    await sleep(1000);
    const arrivals = voiceServer.received(guildId).arrivals;
    const lastPacketAt = arrivals.at(-1) ?? started;
    if (Date.now() - started > timeoutMs)
      throw new Error(`the chat was not read out within ${timeoutMs / 1000} s`);
    if (Date.now() - lastPacketAt < 1000) continue;
    const queue = await discord.slash({ user: 'admin', name: 'queue' }).waitForReply(20_000);
    const chat = /Chat: (\d+) waiting, (\d+) dropped/.exec(queue.content);
    if (chat === null) throw new Error(`/queue answered "${queue.content}"`);
    const idle = queue.content.includes('Nothing is playing or queued.');
    if (idle && chat[1] === '0') {
      const chorus = /(\d+) heard in a chorus/.exec(queue.content);
      return { lastPacketAt, droppedStale: Number(chat[2]), collapsed: Number(chorus?.[1] ?? 0) };
    }
  }
}
