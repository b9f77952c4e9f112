/**
 * Capacity (issue 38): how many servers speaking at once one core holds without a gap. The bot
 * alone (no plain bot beside it), it and every child it runs (the guild encoders' ffmpeg)
 * pinned to one core, the bench process (fake voice server, emulator, fake Discord: the
 * receiver, other machines in reality) on the other at nice -10. Steps of 8 to 48 servers
 * (`BENCH_CAPACITY_STEPS`), each on a fresh stack: one short line each, unmeasured (it starts
 * what a server keeps for speaking), then one 9.5 s sentence each, then four short lines each
 * back to back, every server asked at the same moment; generation times as in `voices`.
 *
 * Gaps are counted as the receiver stamped them, and again less the receiver's own lateness at
 * each (its loop ticks every 1 ms beside the stamps): a lower bound on the bot's. Memory is not
 * sampled while servers speak (reading smaps stalled the receiver: see `speakRound`'s `memory`).
 * Other processes on the machine are not kept off the bot's core: the load is printed beside.
 */
import { cpus, loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import {
  capacityOf,
  GAP_MS,
  type GapsCounted,
  HEARD_AT_LEAST,
  holds,
  lessReceiverLateness,
  type ShapeOutcome,
  type StepOutcome,
  stutters,
} from './capacity-plan.ts';
import { benchUser } from './emulator-log.ts';
import { spokenText, startVoicesStack } from './many-voices.ts';
import { gapsInsideAt } from './many-voices-gaps.ts';
import {
  DEFAULT_GENERATION,
  describeShape,
  type GenerationShape,
  generationTimes,
  runSeed,
  type SpokenPlan,
  type VoicesRun,
} from './many-voices-plan.ts';
import { pinProcess, pinTree, raiseReceiver, unpinnedIn } from './many-voices-receiver.ts';
import { baselineNow, type Side, speakRound, TONE_SECONDS_PER_CHAR } from './many-voices-round.ts';
import { formatNumber, type Row } from './stats.ts';

/** What the capacity bench runs. */
export interface CapacityPlan extends SpokenPlan {
  /** Servers speaking at once, one step each, in increasing order. */
  readonly steps: readonly number[];
}

const SECTION = 'Capacity';
/** The bot's core and the receiver's: the machine has two. */
const BOT_CORE = '1';
const RECEIVER_CORE = '0';

/** Runs the capacity bench and returns its rows. */
export async function capacityBench(plan: CapacityPlan): Promise<Row[]> {
  if (cpus().length < 2) throw new Error('needs 2 cores: one for the bot, one for the receiver');
  const shape = plan.generation ?? DEFAULT_GENERATION;
  const rows: Row[] = [setupRow(shape)];
  const outcomes: StepOutcome[] = [];
  const before = pinProcess(process.pid, RECEIVER_CORE);
  try {
    for (const servers of plan.steps) {
      const at = Date.now();
      const step = await runStep(servers, plan, shape);
      const seconds = (Date.now() - at) / 1000;
      process.stderr.write(`capacity: ${servers} servers took ${seconds.toFixed(0)} s\n`);
      outcomes.push(step.outcome);
      rows.push(...step.rows);
    }
  } finally {
    pinProcess(process.pid, before);
  }
  rows.push(...verdictRows(outcomes, plan.steps));
  return rows;
}

function setupRow(shape: GenerationShape): Row {
  return {
    section: SECTION,
    measure: `setup: the bot alone, it and all its children on core ${BOT_CORE}; the receiver (bench process: fake voice server, emulator, fake Discord) on core ${RECEIVER_CORE} at nice -10; per step a fresh stack, one short line each unmeasured, then the two shapes; WAV; ${describeShape(shape)}`,
    ours: '',
    naive: '',
    ratio: '',
    target: '',
    met: undefined,
  };
}

/** The two measured shapes of a step, after the warm-up line. */
const SHAPES = [
  { name: 'long', text: 'one 9.5 s sentence each' },
  { name: 'short', text: 'four short lines each, back to back' },
] as const;

/** How long a round waits, beyond its speech, for every server to be heard: a step that needs more does not hold. */
const PATIENCE_MS = 40_000;

async function runStep(
  servers: number,
  plan: CapacityPlan,
  shape: GenerationShape,
): Promise<{ outcome: StepOutcome; rows: Row[] }> {
  const run: VoicesRun = { servers, format: 'wav' };
  const ours = Array.from({ length: servers }, (_, i) => benchUser(`capacity_${servers}_${i}`));
  const { stack, metrics } = await startVoicesStack({
    run,
    ours,
    generationMs: generationTimes(shape, runSeed(run)),
  });
  const { discord, voiceServer, bot } = stack;
  try {
    const pinned = pinTree(bot.pid, BOT_CORE);
    const baseline = baselineNow(bot.pid);
    const rounds = [
      { name: 'first', chars: plan.shortChars.slice(0, 1) },
      { name: SHAPES[0].name, chars: [plan.longChars] },
      { name: SHAPES[1].name, chars: plan.shortChars },
    ];
    const measured: Measured[] = [];
    // Raised only now: the bot was started at the usual priority, and its ffmpeg inherit its own.
    const receiver = raiseReceiver();
    if (!receiver.raised) throw new Error('could not raise the receiver to nice -10 (needs root)');
    try {
      for (const round of rounds) {
        const load = loadavg()[0] ?? 0;
        const texts = round.chars.map((n, i) => spokenText(n, i));
        const watch = watchReceiver();
        const [side] = await speakRound({
          discord,
          voiceServer,
          botPid: bot.pid,
          metrics,
          texts,
          round: `capacity-${servers}-${round.name}`,
          baseline,
          patienceMs: PATIENCE_MS,
          // Memory is not what this section measures, and sampling it stalls the receiver.
          memory: false,
        });
        const seen = watch();
        if (round.name === 'first') continue;
        // The round's arrivals stay on the fake voice server until the next round resets them.
        const itemPackets = texts.map((t) => (t.length * TONE_SECONDS_PER_CHAR) / 0.02);
        const expected = itemPackets.reduce((a, b) => a + b, 0);
        const heard = discord.guilds.map((g) => voiceServer.received(g.id).arrivals);
        const stamped = heard.flatMap((arrivals) => gapsInsideAt(arrivals, itemPackets));
        measured.push({
          side,
          load,
          receiver: seen,
          botGaps: lessReceiverLateness(stamped, seen.ticks, TICK_MS),
          fewestHeard: Math.min(...heard.map((a) => a.length / expected)),
          stray: unpinnedIn(bot.pid, BOT_CORE),
        });
      }
    } finally {
      receiver.restore();
    }
    const outcome: StepOutcome = {
      servers,
      shapes: measured.map(
        (m): ShapeOutcome => ({
          gaps: m.side.gaps,
          botGaps: m.botGaps,
          heardShare: m.side.heardShare,
        }),
      ),
    };
    const rows = measured.flatMap((m, i) => stepRows(servers, SHAPES[i]?.text ?? '', m, pinned));
    return { outcome, rows };
  } finally {
    await stack.stop();
  }
}

/** One measured round of a step. */
interface Measured {
  readonly side: Side;
  readonly load: number;
  readonly receiver: ReceiverLoad;
  /** The round's gaps less the receiver's lateness when it stamped their end. */
  readonly botGaps: readonly number[];
  /** Speech heard by the server that heard least, over its text's length. */
  readonly fewestHeard: number;
  /** Threads of the bot's tree not on its core at the round's end (none expected). */
  readonly stray: readonly string[];
}

/** How busy the receiver (this process, alone on its core) was during a round. */
interface ReceiverLoad {
  readonly loopP99Ms: number;
  readonly loopMaxMs: number;
  /** CPU over wall time of the round (1 = its core fully busy). */
  readonly busyShare: number;
  /** Wall time of the round, in ms. */
  readonly wallMs: number;
  /** When a timer of period {@link TICK_MS} ran in its loop, for {@link lessReceiverLateness}. */
  readonly ticks: readonly number[];
}

/** The period of the timer the receiver's event-loop delay is measured with. */
const LOOP_RESOLUTION_MS = 10;

/** The receiver's tick: short, so an idle loop's tick is never far behind a packet. */
const TICK_MS = 1;

/**
 * Starts watching the receiver: arrivals are stamped in its event loop, so a moment it is late
 * shows as a gap in the bot's streams. The returned function stops and reports.
 */
function watchReceiver(): () => ReceiverLoad {
  const delay = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
  delay.enable();
  const ticks: number[] = [];
  // The clock the fake voice server stamps arrivals with.
  const now = () => performance.timeOrigin + performance.now();
  const ticker = setInterval(() => ticks.push(now()), TICK_MS);
  const cpuAt = process.cpuUsage();
  const at = performance.now();
  return () => {
    clearInterval(ticker);
    delay.disable();
    const used = process.cpuUsage(cpuAt);
    const wallMs = performance.now() - at;
    return {
      wallMs,
      // The histogram holds whole periods between its timer's runs: the delay is what is past one.
      loopP99Ms: delay.percentile(99) / 1e6 - LOOP_RESOLUTION_MS,
      loopMaxMs: delay.max / 1e6 - LOOP_RESOLUTION_MS,
      busyShare: (used.user + used.system) / 1000 / wallMs,
      ticks,
    };
  };
}

function stepRows(servers: number, shapeText: string, m: Measured, pinned: number): Row[] {
  const { side, receiver } = m;
  const over = stutters(side.gaps);
  const overBot = stutters(m.botGaps);
  const worst = (gaps: readonly number[]) => formatNumber(Math.max(0, ...gaps), 1);
  const perSecond = (ms: number) => formatNumber(ms / (side.speechMs / 1000), 1);
  const pct = (share: number) => `${formatNumber(share * 100, 0)} %`;
  const what = `${servers} servers at once, ${shapeText} (load ${formatNumber(m.load, 1)})`;
  const pin =
    m.stray.length === 0
      ? ''
      : `; NOT all on core ${BOT_CORE}: ${m.stray.slice(0, 3).join(', ')} (${pinned} pinned at start)`;
  const row = (measure: string, ours: string, target = '', met?: boolean): Row => ({
    section: SECTION,
    measure: `${what}: ${measure}`,
    ours,
    naive: '',
    ratio: '',
    target,
    met,
  });
  return [
    row(
      `gaps over ${GAP_MS} ms inside items as stamped (worst); the same less the receiver's lateness at each (worst); speech heard (fewest by one server)`,
      `${over.length} (${worst(side.gaps)} ms); ${overBot.length} (${worst(m.botGaps)} ms); ${pct(side.heardShare)} (${pct(m.fewestHeard)})`,
      `0 gaps, heard ≥ ${HEARD_AT_LEAST * 100} %`,
      holds({
        servers,
        shapes: [{ gaps: side.gaps, botGaps: m.botGaps, heardShare: side.heardShare }],
      }),
    ),
    row(
      "the bot's event-loop p99 (as its metrics report it: prom-client's 10 ms period included); ms CPU per s of speech (node + every ffmpeg); its core's busy share over the round; the receiver's event-loop delay p99 / max (past its 10 ms period) and its core's busy share",
      `${formatNumber(side.loopP99Ms, 1)} ms; ${perSecond(side.cpuMs)} ms (node ${perSecond(side.nodeMs)}, ffmpeg ${perSecond(side.cpuMs - side.nodeMs)}); ${pct(side.cpuMs / receiver.wallMs)}; ${formatNumber(receiver.loopP99Ms, 0)} / ${formatNumber(receiver.loopMaxMs, 0)} ms, ${pct(receiver.busyShare)}${pin}`,
    ),
  ];
}

function verdictRows(outcomes: readonly StepOutcome[], steps: readonly number[]): Row[] {
  const verdict = (counted: GapsCounted, how: string): Row => {
    const { holds: held, failedBelow } = capacityOf(outcomes, counted);
    const text =
      held === undefined
        ? `none of ${steps.join(', ')}`
        : `${held}${failedBelow.length === 0 ? '' : ` (but not ${failedBelow.join(', ')}: timing noise)`}`;
    return {
      section: SECTION,
      measure: `servers speaking at once one core holds without a gap over ${GAP_MS} ms ${how} (largest step with none in both shapes, speech heard ≥ ${HEARD_AT_LEAST * 100} %; steps ${steps.join(', ')})`,
      ours: text,
      naive: '',
      ratio: '',
      target: '',
      met: undefined,
    };
  };
  return [
    verdict('gaps', 'as the receiver stamped them'),
    verdict('botGaps', "less the receiver's own lateness (a lower bound on the bot's gaps)"),
  ];
}
