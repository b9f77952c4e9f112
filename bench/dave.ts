/**
 * DAVE (issue 28): what end-to-end encryption costs the bot, measured in one run against the fake
 * voice server with DAVE on (as on Discord) and off (transport encryption only): the delay from
 * the poll that saw `Completed` to the first voice packet, and the bot's resident memory per
 * connected server. The bot is a child process; the fake's listening members (davey sessions)
 * live in this process, so they do not count in the bot's memory.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { setApiKey, startLocalStack } from '../tools/local-stack/index.ts';
import { benchText, benchUser, noticeOf, polledGenerations } from './emulator-log.ts';
import { formatNumber, formatRatio, formatSummary, oursRow, type Row, summarize } from './stats.ts';

/** Sizes of the DAVE runs. */
export interface DavePlan {
  /** Items spoken in the first server, not measured, then measured. */
  readonly warmUp: number;
  readonly voice: number;
  /** Servers the bot joins for the memory figure. */
  readonly servers: number;
}

interface Run {
  readonly firstPacketMs: number[];
  /** Bot RSS with every server's voice connected, minus before joining, per server. */
  readonly bytesPerServer: number;
  readonly plaintext: number;
}

/** Runs the DAVE benchmark (DAVE on, then off) and returns its rows. */
export async function daveBench(plan: DavePlan): Promise<Row[]> {
  const on = await run(true, plan);
  const off = await run(false, plan);
  const first = summarize(on.firstPacketMs);
  const firstOff = summarize(off.firstPacketMs);
  return [
    {
      section: 'DAVE',
      measure: `Completed poll → first voice packet, DAVE on (n=${first.n}; second column: DAVE off, n=${firstOff.n}, same run)`,
      ours: formatSummary(first),
      naive: formatSummary(firstOff),
      ratio: formatRatio(first.median, firstOff.median),
      target: '',
      met: undefined,
    },
    oursRow(
      'DAVE',
      `bot memory per connected voice server (${plan.servers} servers), DAVE on / off`,
      `${kb(on.bytesPerServer)} / ${kb(off.bytesPerServer)}`,
    ),
    oursRow(
      'DAVE',
      'servers that heard a plaintext frame under DAVE (whole run)',
      String(on.plaintext),
      { text: '0', met: on.plaintext === 0 },
    ),
  ];
}

function kb(bytes: number): string {
  return `${formatNumber(bytes / 1024, 0)} KB`;
}

async function run(dave: boolean, plan: DavePlan): Promise<Run> {
  const user = benchUser(dave ? 'dave_on' : 'dave_off');
  const stack = await startLocalStack({
    emulator: { users: [user], maxLogEntries: 100_000 },
    discord: {
      guilds: Array.from({ length: plan.servers }, () => ({
        voiceStates: [{ user: 'member', channel: 'Voice' }],
      })),
    },
    voiceOptions: dave ? {} : { dave: false },
  });
  const { discord, emulator, voiceServer, bot } = stack;
  try {
    await setApiKey(discord, user.apiKey);
    const idle = await settledRss(() => bot.rssBytes());
    await Promise.all(
      discord.guilds.map((guild) =>
        discord
          .slash({ user: 'member', name: 'join', channelId: guild.textChannelId })
          .waitForReply(60_000),
      ),
    );
    const joined = await settledRss(() => bot.rssBytes());

    const guild = discord.guilds[0];
    if (guild === undefined) throw new Error('no server');
    const firstPacketMs: number[] = [];
    for (let i = 0; i < plan.warmUp + plan.voice; i++) {
      voiceServer.reset(guild.id);
      const before = new Set(polledGenerations(emulator.requests, [user]));
      const handle = discord.slash({
        user: 'member',
        name: 'say',
        channelId: guild.textChannelId,
        options: { text: benchText(40 + (i % 4) * 10, i), output: 'voice', speed: 2 },
      });
      await handle.waitFor(
        (event) =>
          event.kind === 'edit' && /Played|failed|could not/i.test(JSON.stringify(event.data)),
        60_000,
      );
      const first = voiceServer.received(guild.id).arrivals[0];
      const id = polledGenerations(emulator.requests, [user]).find((g) => !before.has(g));
      const notice = id === undefined ? undefined : noticeOf(emulator, emulator.requests, id);
      if (i >= plan.warmUp && first !== undefined && notice !== undefined) {
        firstPacketMs.push(first - notice.seenAt);
      }
    }
    const plaintext = voiceServer.plaintextReport().length;
    return { firstPacketMs, bytesPerServer: (joined - idle) / plan.servers, plaintext };
  } finally {
    await stack.stop();
  }
}

/** The lowest of a few RSS samples once the bot settled. */
async function settledRss(rss: () => number): Promise<number> {
  await sleep(2000);
  let lowest = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 5; i++) {
    lowest = Math.min(lowest, rss());
    await sleep(400);
  }
  return lowest;
}
