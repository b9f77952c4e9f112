/**
 * Scale: the bot's resident memory with 1,000 and 5,000 servers on the fake gateway (the
 * marginal bytes per server), and with 20 servers speaking at once its CPU per voice stream
 * (ffmpeg included) and how evenly the packets arrive.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { keyAndJoinEvery, startLocalStack } from '../tools/local-stack/index.ts';
import { benchText, benchUser } from './emulator-log.ts';
import { formatNumber, jitterMs, meets, oursRow, percentile, type Row } from './stats.ts';

/** Sizes of the scale runs. */
export interface ScalePlan {
  readonly servers: readonly [number, number];
  readonly speaking: number;
  /** How long CPU and packets are measured while every server speaks. */
  readonly windowMs: number;
}

/** Runs the scale benchmark and returns its rows. */
export async function scaleBench(plan: ScalePlan): Promise<Row[]> {
  const [few, many] = plan.servers;
  const rssFew = await settledRss(few);
  const rssMany = await settledRss(many);
  const marginal = (rssMany - rssFew) / (many - few);
  const rows: Row[] = [
    oursRow(
      'Scale',
      `bot RSS with ${formatNumber(few)} / ${formatNumber(many)} servers`,
      `${mb(rssFew)} / ${mb(rssMany)}`,
    ),
    oursRow(
      'Scale',
      'marginal memory per connected server',
      `${formatNumber(marginal / 1024, 1)} KB`,
      { text: '< 15 KB', met: meets(marginal, { max: 15 * 1024 }) },
    ),
  ];
  rows.push(...(await speakingRows(plan)));
  return rows;
}

function mb(bytes: number): string {
  return `${formatNumber(bytes / 1024 / 1024, 1)} MB`;
}

/** The bot's RSS once logged in with `servers` guilds: the lowest of a few samples after it settled. */
async function settledRss(servers: number): Promise<number> {
  const stack = await startLocalStack({
    discord: { guilds: Array.from({ length: servers }, () => ({})) },
    readyTimeoutMs: 300_000,
  });
  try {
    await sleep(3000);
    let lowest = Number.POSITIVE_INFINITY;
    for (let i = 0; i < 5; i++) {
      lowest = Math.min(lowest, stack.bot.rssBytes());
      await sleep(500);
    }
    return lowest;
  } finally {
    await stack.stop();
  }
}

async function speakingRows(plan: ScalePlan): Promise<Row[]> {
  const users = Array.from({ length: plan.speaking }, (_, i) => benchUser(`scale_${i}`));
  const stack = await startLocalStack({
    emulator: { users, generationMs: () => 300 },
    discord: {
      guilds: users.map(() => ({ voiceStates: [{ user: 'member', channel: 'Voice' }] })),
    },
  });
  const { discord, voiceServer, bot } = stack;
  try {
    await keyAndJoinEvery(
      discord,
      users.map((user) => user.apiKey),
      30_000,
    );
    // About 40 s of audio each (the emulator's tone lasts 60 ms per character at speed 1).
    const sayIn = (guild: { textChannelId: string }) =>
      discord.slash({
        user: 'member',
        name: 'say',
        channelId: guild.textChannelId,
        options: { text: benchText(700, 1), output: 'voice' },
      });
    for (const guild of discord.guilds) sayIn(guild);
    const isSpeaking = (g: { id: string }) => voiceServer.received(g.id).arrivals.length > 25;
    // A /say that failed (see `resent` in the row) is sent again, so that every server speaks.
    let resent = 0;
    for (let round = 0; round < 3; round++) {
      const deadline = Date.now() + 15_000;
      while (!discord.guilds.every(isSpeaking) && Date.now() < deadline) await sleep(100);
      const silent = discord.guilds.filter((g) => !isSpeaking(g));
      if (silent.length === 0) break;
      resent += silent.length;
      for (const guild of silent) sayIn(guild);
    }
    const streams = discord.guilds.filter(isSpeaking).length;
    const failures = bot.logs
      .filter((l) => l.msg === 'speech generation failed')
      .map((l) => String((l.err as { message?: unknown } | undefined)?.message ?? ''));
    const cpuBefore = bot.cpuMs();
    const from = performance.timeOrigin + performance.now();
    await sleep(plan.windowMs);
    const to = performance.timeOrigin + performance.now();
    const cpuMs = bot.cpuMs() - cpuBefore;
    const rss = bot.rssBytes();
    const deviations = discord.guilds.flatMap((g) =>
      jitterMs(voiceServer.received(g.id).arrivals.filter((t) => t >= from && t <= to)),
    );
    const perStream = streams === 0 ? Number.NaN : cpuMs / ((to - from) / 1000) / streams;
    return [
      oursRow(
        'Scale',
        `CPU per voice stream, ${streams} servers speaking (bot + its ffmpeg, ms of CPU per second)`,
        `${formatNumber(perStream, 1)} ms/s (${formatNumber(perStream / 10, 2)} % of a core); bot RSS ${mb(rss)}${failures.length === 0 ? '' : `; ${failures.length} generations failed (${[...new Set(failures)].join('; ')}), /say sent again ${resent} times where silent after 15 s`}`,
      ),
      oursRow(
        'Scale',
        `packet jitter: |gap − 20 ms| median / p95 (${formatNumber(deviations.length)} gaps)`,
        `${formatNumber(percentile(deviations, 0.5), 1)} ms / ${formatNumber(percentile(deviations, 0.95), 1)} ms`,
      ),
    ];
  } finally {
    await stack.stop();
  }
}
