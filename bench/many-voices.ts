/**
 * Many voices (issue 38): 12, 24 and 48 servers speaking at once in one bot process, each with
 * its own key and a listener in voice, all asking at the same moment for one long sentence, then
 * for four short lines each; side by side, in the same run, with a plain bot (its own process,
 * one ffmpeg per item into Ogg Opus at 96 kb/s: `plain-voice-bot.ts`) on as many servers of the
 * same fake voice server. CPU is process time from /proc (the bot or the plain bot, their
 * running ffmpeg children and those reaped), which the machine's other load inflates little;
 * gaps and event-loop delay are timings and grow with load (the load average is printed beside).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FakeDiscord } from '../test/fake-discord/index.ts';
import { type FakeVoiceServer, fakeVoiceCertificate } from '../test/fake-discord/voice/index.ts';
import {
  childrenOf,
  keyAndJoinEvery,
  ownCpuMs,
  REPO_ROOT,
  rssOf,
  startLocalStack,
  treeCpuMs,
} from '../tools/local-stack/index.ts';
import { benchUser } from './emulator-log.ts';
import { encodeFloor } from './many-voices-floor.ts';
import { gapsInside } from './many-voices-gaps.ts';
import type { PlainConfig, PlainGuild, PlainRound } from './plain-voice-bot.ts';
import { formatNumber, formatRatio, meets, type Row } from './stats.ts';

/** Sizes of the many-voices runs. */
export interface ManyVoicesPlan {
  readonly servers: readonly number[];
  /** Characters of the long sentence (60 ms of tone each: 158 ≈ 9.5 s). */
  readonly longChars: number;
  /** The short lines each server says back to back. */
  readonly shortChars: readonly number[];
  /** Extra node flags for the bot (e.g. `--cpu-prof --cpu-prof-dir=…` for the profile). */
  readonly botNodeOptions?: string;
}

const TONE_SECONDS_PER_CHAR = 0.06;
const GENERATION_MS = 1500;
const VOICE_ID = 'am_2riuownnf';
const RATE_SCALE = 0.1;
const PLAIN_BOT_ID = '100000000000000077';

/** What one side (the bot or the plain bot) did in one round. */
interface Side {
  readonly cpuMs: number;
  /** Of `cpuMs`, the node process's own (the rest is ffmpeg's). */
  readonly nodeMs: number;
  readonly speechMs: number;
  readonly gaps: number[];
  readonly loopP99Ms: number;
  readonly bytesPerServer: number;
  readonly heardShare: number;
}

/** Runs the many-voices benchmark and returns its rows. */
export async function manyVoicesBench(plan: ManyVoicesPlan): Promise<Row[]> {
  const rows: Row[] = [];
  const floor = await encodeFloor(plan.longChars * TONE_SECONDS_PER_CHAR);
  rows.push({
    section: 'Many voices',
    measure:
      'floor: ffmpeg encode alone, ms CPU per s of speech (ours: filter, 64 kb/s; plain: 96 kb/s), and per ffmpeg start',
    ours: `${formatNumber(floor.oursPerSecond, 1)} ms/s`,
    naive: `${formatNumber(floor.plainPerSecond, 1)} ms/s; start ${formatNumber(floor.startMs, 0)} ms/item`,
    ratio: '',
    target: '',
    met: undefined,
  });
  for (const servers of plan.servers) rows.push(...(await runSize(servers, plan)));
  return rows;
}

async function runSize(servers: number, plan: ManyVoicesPlan): Promise<Row[]> {
  const ours = Array.from({ length: servers }, (_, i) => benchUser(`voices_${servers}_${i}`));
  const plainUsers = Array.from({ length: servers }, (_, i) => benchUser(`plain_${servers}_${i}`));
  const port = await freePort();
  const stack = await startLocalStack({
    emulator: {
      users: [...ours, ...plainUsers],
      generationMs: () => GENERATION_MS,
      synth: 'tone',
      toneSecondsPerChar: TONE_SECONDS_PER_CHAR,
      maxLogEntries: 2000,
      // Rate windows a tenth as long (for the bot too): four lines per key are not held back.
      timeScale: RATE_SCALE,
    },
    discord: {
      guilds: ours.map(() => ({ voiceStates: [{ user: 'member', channel: 'Voice' }] })),
    },
    env: {
      TTS_LIMITS: `generate=20/${6000}ms+500/${8_640_000}ms,status=60/${6000}ms,voices=10/${6000}ms,health=100/${6000}ms`,
      HTTP_PORT: String(port),
      HTTP_HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      ...(plan.botNodeOptions === undefined ? {} : { NODE_OPTIONS: plan.botNodeOptions }),
    },
  });
  const { discord, voiceServer, bot, emulator } = stack;
  let plain: PlainBot | undefined;
  try {
    await keyAndJoinEvery(
      discord,
      ours.map((u) => u.apiKey),
      60_000,
    );
    plain = await startPlainBot(
      voiceServer,
      emulator.baseUrl,
      plainUsers.map((u) => u.apiKey),
    );
    const metrics = `http://127.0.0.1:${port}/metrics`;
    const rounds = [
      { name: 'long', chars: [plan.longChars] },
      { name: 'short', chars: plan.shortChars },
    ];
    const rows: Row[] = [];
    for (const round of rounds) {
      const load = loadavg()[0] ?? 0;
      const texts = round.chars.map((n, i) => spokenText(n, i));
      const [mine, theirs] = await speakRound({
        discord,
        voiceServer,
        botPid: bot.pid,
        metrics,
        plain,
        texts,
        round: `${servers}-${round.name}`,
      });
      rows.push(...roundRows(servers, round.name, mine, theirs, load));
    }
    return rows;
  } finally {
    await plain?.stop();
    await stack.stop();
  }
}

function roundRows(servers: number, round: string, mine: Side, theirs: Side, load: number): Row[] {
  const perSecond = (side: Side) => side.cpuMs / (side.speechMs / 1000);
  const cpuText = (side: Side) =>
    `${formatNumber(perSecond(side), 1)} ms (node ${formatNumber(side.nodeMs / (side.speechMs / 1000), 1)}, ffmpeg ${formatNumber((side.cpuMs - side.nodeMs) / (side.speechMs / 1000), 1)})`;
  const ratio = perSecond(mine) / perSecond(theirs);
  const what = `${servers} servers, ${round === 'long' ? 'one 9.5 s sentence' : 'four short lines'} each (load ${formatNumber(load, 1)})`;
  const row = (measure: string, ours: string, naive: string, target = '', met?: boolean): Row => ({
    section: 'Many voices',
    measure: `${what}: ${measure}`,
    ours,
    naive,
    ratio: '',
    target,
    met,
  });
  const gapText = (side: Side) =>
    `${side.gaps.filter((g) => g > 60).length} (worst ${formatNumber(Math.max(0, ...side.gaps), 0)} ms)`;
  const atScale = servers >= 24;
  return [
    {
      ...row(
        'ms CPU per s of speech (node + ffmpeg)',
        cpuText(mine),
        cpuText(theirs),
        atScale ? '≤ 0.6× plain' : '',
        atScale ? meets(ratio, { max: 0.6 }) : undefined,
      ),
      ratio: formatRatio(perSecond(mine), perSecond(theirs)),
    },
    row(
      'gaps over 60 ms inside items (worst gap; timing: load-sensitive)',
      gapText(mine),
      gapText(theirs),
      servers === 24 ? '0' : '',
      servers === 24 ? mine.gaps.every((g) => g <= 60) : undefined,
    ),
    row(
      'event-loop delay p99 while speaking (load-sensitive)',
      `${formatNumber(mine.loopP99Ms, 1)} ms`,
      `${formatNumber(theirs.loopP99Ms, 1)} ms`,
      '≤ 20 ms',
      meets(mine.loopP99Ms, { max: 20 }),
    ),
    row(
      'memory per speaking server (peak RSS, process + ffmpeg, over idle); speech heard',
      `${formatNumber(mine.bytesPerServer / 1024 / 1024, 1)} MB; ${formatNumber(mine.heardShare * 100, 0)} %`,
      `${formatNumber(theirs.bytesPerServer / 1024 / 1024, 1)} MB; ${formatNumber(theirs.heardShare * 100, 0)} %`,
    ),
  ];
}

/** `n` characters of plain words, different per item so nothing is cached or shared. */
function spokenText(n: number, i: number): string {
  const words = `Line ${i} of the chat is read aloud here for everyone in the voice channel. `;
  return words.repeat(Math.ceil(n / words.length) + 1).slice(0, n);
}

interface PlainBot {
  readonly pid: number;
  readonly guildIds: readonly string[];
  round(round: PlainRound): Promise<{ loopP99Ms: number; failed: number }>;
  stop(): Promise<void>;
}

async function startPlainBot(
  voice: FakeVoiceServer,
  baseUrl: string,
  keys: readonly string[],
): Promise<PlainBot> {
  const guilds: PlainGuild[] = keys.map((apiKey, i) => {
    const guildId = String(880000000000000000n + BigInt(i));
    const channelId = String(890000000000000000n + BigInt(i));
    const sessionId = `plain${i}`;
    const opened = voice.open({ guildId, channelId, userId: PLAIN_BOT_ID, sessionId });
    return { guildId, channelId, userId: PLAIN_BOT_ID, sessionId, ...opened, apiKey };
  });
  const config: PlainConfig = { baseUrl, voiceId: VOICE_ID, guilds };
  const child: ChildProcess = spawn(
    process.execPath,
    [join(REPO_ROOT, 'bench', 'plain-voice-bot.ts')],
    {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        NODE_EXTRA_CA_CERTS: (await fakeVoiceCertificate()).certPath,
        PLAIN_BOT_CONFIG: JSON.stringify(config),
      },
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const pid = child.pid;
  if (pid === undefined || child.stdout === null || child.stdin === null) {
    throw new Error('the plain bot could not start');
  }
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async (): Promise<Record<string, unknown>> => {
    const line = await lines.next();
    if (line.done === true) throw new Error('the plain bot exited');
    return JSON.parse(line.value) as Record<string, unknown>;
  };
  await next();
  const stdin = child.stdin;
  return {
    pid,
    guildIds: guilds.map((g) => g.guildId),
    round: async (round) => {
      stdin.write(`${JSON.stringify(round)}\n`);
      const done = await next();
      return { loopP99Ms: Number(done.loopP99Ms), failed: Number(done.failed) };
    },
    stop: async () => {
      stdin.end();
      if (child.exitCode === null) {
        await new Promise((resolve) => child.once('exit', resolve));
      }
    },
  };
}

interface RoundInput {
  readonly discord: FakeDiscord;
  readonly voiceServer: FakeVoiceServer;
  readonly botPid: number;
  readonly metrics: string;
  readonly plain: PlainBot;
  readonly texts: readonly string[];
  readonly round: string;
}

/** Both bots speak `texts` in every server at once; what each cost and how it sounded. */
async function speakRound(input: RoundInput): Promise<[Side, Side]> {
  const { discord, voiceServer, plain, texts } = input;
  const ourIds = discord.guilds.map((g) => g.id);
  for (const id of [...ourIds, ...plain.guildIds]) voiceServer.reset(id);
  await loopP99(input.metrics); // resets the bot's histogram
  const itemPackets = texts.map((t) => (t.length * TONE_SECONDS_PER_CHAR) / 0.02);
  const expected = itemPackets.reduce((a, b) => a + b, 0);
  const treeRss = (pid: number) => rssOf(pid) + childrenOf(pid).reduce((s, k) => s + rssOf(k), 0);
  const idle = { ours: treeRss(input.botPid), plain: treeRss(plain.pid) };
  const peak = { ...idle };
  const cpuAtStart = { ours: treeCpuMs(input.botPid), plain: treeCpuMs(plain.pid) };
  const nodeAtStart = { ours: ownCpuMs(input.botPid), plain: ownCpuMs(plain.pid) };
  const sampler = setInterval(() => {
    peak.ours = Math.max(peak.ours, treeRss(input.botPid));
    peak.plain = Math.max(peak.plain, treeRss(plain.pid));
  }, 200);
  const plainDone = plain.round({
    round: input.round,
    texts: Object.fromEntries(plain.guildIds.map((id) => [id, texts])),
  });
  void Promise.all(
    discord.guilds.map(async (guild) => {
      for (const [i, text] of texts.entries()) {
        // At most three pending per member (the playing one not counted): the fourth follows the first's sound.
        while (i >= 3 && voiceServer.received(guild.id).arrivals.length === 0) await sleep(20);
        discord.slash({
          user: 'member',
          name: 'say',
          channelId: guild.textChannelId,
          options: { text, output: 'voice' },
        });
        await sleep(100); // in order, as a chat sends them
      }
    }),
  );
  const heard = (id: string) => voiceServer.received(id).arrivals;
  const quietSince = (id: string) => Date.now() - (heard(id).at(-1) ?? 0);
  const deadline = Date.now() + 120_000 + expected * 20;
  while (
    Date.now() < deadline &&
    !ourIds.every((id) => heard(id).length >= expected * 0.95 && quietSince(id) > 1000)
  ) {
    await sleep(250);
  }
  const ourLoop = await loopP99(input.metrics);
  const cpuOurs = treeCpuMs(input.botPid) - cpuAtStart.ours;
  const nodeOurs = ownCpuMs(input.botPid) - nodeAtStart.ours;
  const plainResult = await plainDone;
  if (plainResult.failed > 0)
    process.stderr.write(`plain bot: ${plainResult.failed} items failed\n`);
  await sleep(500);
  const cpuPlain = treeCpuMs(plain.pid) - cpuAtStart.plain;
  const nodePlain = ownCpuMs(plain.pid) - nodeAtStart.plain;
  clearInterval(sampler);
  const side = (
    ids: readonly string[],
    [cpuMs, nodeMs]: [number, number],
    loop: number,
    grown: number,
  ): Side => {
    const packets = ids.reduce((s, id) => s + heard(id).length, 0);
    return {
      cpuMs,
      nodeMs,
      speechMs: packets * 20,
      gaps: ids.flatMap((id) => gapsInside(heard(id), itemPackets)),
      loopP99Ms: loop,
      bytesPerServer: grown / ids.length,
      heardShare: packets / (expected * ids.length),
    };
  };
  return [
    side(ourIds, [cpuOurs, nodeOurs], ourLoop, peak.ours - idle.ours),
    side(plain.guildIds, [cpuPlain, nodePlain], plainResult.loopP99Ms, peak.plain - idle.plain),
  ];
}

/** The bot's event-loop delay p99 in ms since the last scrape (prom-client resets it on each). */
async function loopP99(metrics: string): Promise<number> {
  const text = await (await fetch(metrics)).text();
  const match = /^nodejs_eventloop_lag_p99_seconds(?:\{[^}]*\})? ([\d.e+-]+)/m.exec(text);
  return match?.[1] === undefined ? Number.NaN : Number(match[1]) * 1000;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
