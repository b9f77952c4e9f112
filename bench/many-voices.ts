/**
 * Many voices (issue 38): many servers speaking at once in one bot process, each with its own key
 * and a listener in voice, side by side, in the same run, with a plain bot (its own process, one
 * ffmpeg per item into Ogg Opus at 96 kb/s: `plain-voice-bot.ts`) on as many servers of the same
 * fake voice server.
 *
 * The shapes run (`many-voices-plan.ts`): WAV audio at 12, 24 and 48 servers and MP3 at 24 (the
 * plain bot's ffmpeg probes either; `BENCH_VOICES_FORMATS` picks formats, `--quick` one size,
 * `BENCH_VOICES_QUICK`). Each generation takes 0.6–4 s, drawn per request from a seeded sequence
 * (`BENCH_VOICES_GENERATION`: `1500` for the fixed time of before), so servers asked at the same
 * moment finish apart. Per size, three rounds, every server asked at the same moment each time:
 * one short line each just after joining (the first line, which starts whatever a server keeps
 * for speaking), then, servers already speaking, one 9.5 s sentence each, then four short lines
 * each back to back.
 *
 * Speech heard is counted against the text's tone length: both bots hear an MP3 item about 5
 * packets (0.1 s) longer, so it reads about 5 % high for MP3's short lines.
 *
 * CPU and memory are of the whole process tree (node and every ffmpeg it runs, read from /proc
 * the same way for both bots), which the machine's other load inflates little; gaps and
 * event-loop delay are timings and grow with load (the load average is printed beside).
 */
import { createServer } from 'node:net';
import { loadavg } from 'node:os';
import type { EmulatorUser } from '../tools/emulator/index.ts';
import { keyAndJoinEvery, type LocalStack, startLocalStack } from '../tools/local-stack/index.ts';
import { benchUser } from './emulator-log.ts';
import { encodeFloor } from './many-voices-floor.ts';
import { type PlainBot, startPlainBot } from './many-voices-plain.ts';
import {
  DEFAULT_GENERATION,
  describeShape,
  type GenerationShape,
  generationTimes,
  runSeed,
  type SpokenPlan,
  type VoicesRun,
} from './many-voices-plan.ts';
import { RECEIVER_NICENESS, raiseReceiver } from './many-voices-receiver.ts';
import { baselineNow, type Side, speakRound, TONE_SECONDS_PER_CHAR } from './many-voices-round.ts';
import { formatNumber, formatRatio, meets, type Row } from './stats.ts';

/** What the many-voices bench runs. */
export interface ManyVoicesPlan extends SpokenPlan {
  readonly runs: readonly VoicesRun[];
  /** Extra node flags for the bot (e.g. `--cpu-prof --cpu-prof-dir=…` for the profile). */
  readonly botNodeOptions?: string;
}

const VOICE_ID = 'am_2riuownnf';
const RATE_SCALE = 0.1;

/** The rounds of one run, in order: `first` is the line that starts each server speaking. */
type RoundName = 'first' | 'long' | 'short';

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
  const shape = plan.generation ?? DEFAULT_GENERATION;
  const raised = raiseReceiver();
  raised.restore();
  rows.push({
    section: 'Many voices',
    measure:
      'the receiver (fake voice server and emulator, in the bench process: other machines in reality) scheduled ahead of both bots while they speak, so its own waits do not count as their gaps',
    ours: raised.raised
      ? `yes (nice ${RECEIVER_NICENESS})`
      : 'no (needs root): gaps include its waits',
    naive: '',
    ratio: '',
    target: '',
    met: undefined,
  });
  await runAll(plan, shape, rows);
  return rows;
}

async function runAll(plan: ManyVoicesPlan, shape: GenerationShape, rows: Row[]): Promise<void> {
  for (const run of plan.runs) {
    const at = Date.now();
    const runRows = await runSize(run, plan, generationTimes(shape, runSeed(run)));
    const seconds = (Date.now() - at) / 1000;
    process.stderr.write(
      `many voices: ${run.servers} servers ${run.format.toUpperCase()} took ${seconds.toFixed(0)} s\n`,
    );
    rows.push({
      section: 'Many voices',
      measure: `${runName(run)}: wall time of the run (start, join, three rounds, stop); ${describeShape(shape)}`,
      ours: `${formatNumber(seconds, 0)} s`,
      naive: '',
      ratio: '',
      target: '',
      met: undefined,
    });
    rows.push(...runRows);
  }
}

function runName(run: VoicesRun): string {
  return `${run.servers} servers, ${run.format.toUpperCase()}`;
}

async function runSize(
  run: VoicesRun,
  plan: ManyVoicesPlan,
  generationMs: () => number,
): Promise<Row[]> {
  const { servers } = run;
  const tag = `${servers}_${run.format}`;
  const ours = Array.from({ length: servers }, (_, i) => benchUser(`voices_${tag}_${i}`));
  const plainUsers = Array.from({ length: servers }, (_, i) => benchUser(`plain_${tag}_${i}`));
  const { stack, metrics } = await startVoicesStack({
    run,
    ours,
    others: plainUsers,
    generationMs,
    ...(plan.botNodeOptions === undefined ? {} : { botNodeOptions: plan.botNodeOptions }),
  });
  const { discord, voiceServer, bot, emulator } = stack;
  let plain: PlainBot | undefined;
  try {
    plain = await startPlainBot(
      voiceServer,
      emulator.baseUrl,
      VOICE_ID,
      plainUsers.map((u) => u.apiKey),
    );
    // Memory is counted over each tree before any server spoke, in every round: what a server
    // keeps while it speaks (an encoder, buffers) counts in the rounds that follow too.
    const baseline = baselineNow(bot.pid, plain.pid);
    const rounds: { name: RoundName; chars: readonly number[] }[] = [
      { name: 'first', chars: plan.shortChars.slice(0, 1) },
      { name: 'long', chars: [plan.longChars] },
      { name: 'short', chars: plan.shortChars },
    ];
    const rows: Row[] = [];
    // Raised only now: both bots were started at the usual priority, and their ffmpeg inherit theirs.
    const receiver = raiseReceiver();
    try {
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
          round: `${tag}-${round.name}`,
          baseline,
        });
        rows.push(...roundRows(run, round.name, mine, theirs, load));
      }
    } finally {
      receiver.restore();
    }
    return rows;
  } finally {
    await plain?.stop();
    await stack.stop();
  }
}

const ROUND_TEXT: Record<RoundName, string> = {
  first: 'first line after joining (one short line each)',
  long: 'one 9.5 s sentence each, already speaking',
  short: 'four short lines each, already speaking',
};

function roundRows(
  run: VoicesRun,
  round: RoundName,
  mine: Side,
  theirs: Side,
  load: number,
): Row[] {
  const { servers } = run;
  const perSecond = (side: Side) => side.cpuMs / (side.speechMs / 1000);
  const cpuText = (side: Side) =>
    `${formatNumber(perSecond(side), 1)} ms (node ${formatNumber(side.nodeMs / (side.speechMs / 1000), 1)}, ffmpeg ${formatNumber((side.cpuMs - side.nodeMs) / (side.speechMs / 1000), 1)})`;
  const ratio = perSecond(mine) / perSecond(theirs);
  const what = `${runName(run)}, ${ROUND_TEXT[round]} (load ${formatNumber(load, 1)})`;
  // The targets are for WAV's long and short rounds; beside the other shapes they are
  // shown as a reference, marked so.
  const extra = round === 'first' || run.format !== 'wav' ? ' (extra shape)' : '';
  const row = (measure: string, ours: string, naive: string, target = '', met?: boolean): Row => ({
    section: 'Many voices',
    measure: `${what}: ${measure}`,
    ours,
    naive,
    ratio: '',
    target: target === '' ? '' : `${target}${extra}`,
    met,
  });
  const gapText = (side: Side) =>
    `${side.gaps.filter((g) => g > 60).length} (worst ${formatNumber(Math.max(0, ...side.gaps), 0)} ms)`;
  const mb = (side: Side) =>
    `${formatNumber(side.bytesPerServer / 1024 / 1024, 1)} MB; ${formatNumber(side.heardShare * 100, 0)} %`;
  const atScale = servers >= 24;
  return [
    {
      ...row(
        'ms CPU per s of speech (node + every ffmpeg)',
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
      'memory per speaking server (peak Pss of the whole tree: node + every ffmpeg child, shared library pages divided among them; over the tree before any server spoke); speech heard',
      mb(mine),
      mb(theirs),
    ),
  ];
}

/** What {@link startVoicesStack} starts: a run's servers, with the bot's users and any others. */
export interface VoicesStackInput {
  readonly run: VoicesRun;
  /** One per server of the bot, each with its own key. */
  readonly ours: readonly EmulatorUser[];
  /** More users of the emulator (the plain bot's keys). */
  readonly others?: readonly EmulatorUser[];
  readonly generationMs: () => number;
  readonly botNodeOptions?: string;
}

/**
 * The local stack for one run, every server keyed and the bot in its member's voice channel;
 * with the bot's metrics address (for its event-loop delay). Stops the stack if it fails.
 */
export async function startVoicesStack(
  input: VoicesStackInput,
): Promise<{ stack: LocalStack; metrics: string }> {
  const { run, ours } = input;
  const port = await freePort();
  const stack = await startLocalStack({
    emulator: {
      users: [...ours, ...(input.others ?? [])],
      generationMs: input.generationMs,
      synth: 'tone',
      toneSecondsPerChar: TONE_SECONDS_PER_CHAR,
      audioFormat: run.format,
      mediaExtension: `.${run.format}`,
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
      ...(input.botNodeOptions === undefined ? {} : { NODE_OPTIONS: input.botNodeOptions }),
    },
  });
  try {
    if (stack.emulator.audioFormat !== run.format) {
      throw new Error(
        `the emulator serves ${stack.emulator.audioFormat}, not ${run.format} (no ffmpeg?)`,
      );
    }
    await keyAndJoinEvery(
      stack.discord,
      ours.map((u) => u.apiKey),
      60_000,
    );
    return { stack, metrics: `http://127.0.0.1:${port}/metrics` };
  } catch (error) {
    await stack.stop();
    throw error;
  }
}

/** `n` characters of plain words, different per item so nothing is cached or shared. */
export function spokenText(n: number, i: number): string {
  const words = `Line ${i} of the chat is read aloud here for everyone in the voice channel. `;
  return words.repeat(Math.ceil(n / words.length) + 1).slice(0, n);
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
