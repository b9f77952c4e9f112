/**
 * v3 streams that fail while their item plays, and the start buffer (issue 28): at 1× real time
 * with 30 % jitter, submit → first voice packet and the gaps in the voice packets (a gap over
 * 60 ms is a stutter: the player ran dry); then, at 2× and 1×, a stream cut (its generation
 * going on), ended by an `error` frame, or closed without `completed` after ~1 s of audio:
 * audio heard ÷ audio generated (the rest comes from the file, once).
 */
import { LIVE_START_PACKETS } from '../src/voice/playback.ts';
import type { Fault } from '../tools/emulator/index.ts';
import { benchText, benchUser } from './emulator-log.ts';
import { formatSummary, meets, oursRow, type Row, summarize } from './stats.ts';
import { openV3Voice } from './v3-voice.ts';

/** A gap between voice packets longer than this is heard as a stutter (a packet is 20 ms). */
const STUTTER_MS = 60;
const FAULTS: readonly [string, Fault][] = [
  ['cut (generation goes on)', { kind: 'stream-cut', afterChunks: 5, completes: true }],
  ['`error` frame', { kind: 'stream-error', afterChunks: 5, message: 'bench fault' }],
  ['closed without `completed`', { kind: 'stream-close', afterChunks: 5, completes: true }],
];

/** The gaps over {@link STUTTER_MS} between consecutive packet arrivals. */
function stutters(arrivals: readonly number[]): number[] {
  return arrivals.slice(1).flatMap((at, i) => {
    const gap = at - (arrivals[i] ?? at);
    return gap > STUTTER_MS ? [gap] : [];
  });
}

/**
 * Runs the mid-play benchmark: `items` items for the buffer rows (streams at `bufferPace`× real
 * time), and each fault `faultItems` times per pace.
 */
export async function v3MidPlayBench(
  items: number,
  faultItems = items,
  bufferPace = 1,
): Promise<Row[]> {
  const user = benchUser('v3_midplay');
  const voice = await openV3Voice(user, { speed: bufferPace });
  const rows: Row[] = [];
  try {
    const { emulator } = voice.stack;
    let said = 0;
    /** Says a fresh text; the first packet's delay, the gaps, and heard ÷ generated. */
    const say = async (length: number) => {
      said++;
      const run = await voice.say(benchText(length, 1000 + said), 300);
      return {
        first: (run.received.arrivals[0] ?? Number.NaN) - run.sentAt,
        gaps: stutters(run.received.arrivals),
        heard: run.heard,
      };
    };
    await say(40); // warm-up
    const firsts: number[] = [];
    const gaps: number[][] = [];
    for (let i = 0; i < items; i++) {
      const run = await say(70 + (i % 3) * 10);
      firsts.push(run.first);
      gaps.push(run.gaps);
    }
    const all = gaps.flat();
    const label = `v3 stream at ${bufferPace}× real time, 30 % jitter, start buffer ${LIVE_START_PACKETS * 20} ms of Opus`;
    rows.push(
      oursRow(
        'pace',
        `${label}: submit → first voice packet (n=${firsts.length})`,
        formatSummary(summarize(firsts)),
      ),
      oursRow(
        'pace',
        `${label}: gaps over ${STUTTER_MS} ms between voice packets, per item (mean of ${items}; longest)`,
        `${(all.length / items).toFixed(1)}; ${all.length === 0 ? '–' : `${Math.round(Math.max(...all))} ms`}`,
      ),
    );
    for (const pace of faultItems > 0 ? [2, 1] : []) {
      emulator.v3.setStreamSpeed(pace);
      for (const [name, fault] of FAULTS) {
        const heard: number[] = [];
        for (let i = 0; i < faultItems; i++) {
          emulator.fault(fault);
          heard.push((await say(70)).heard);
        }
        const worst = Math.min(...heard);
        const most = Math.max(...heard);
        rows.push(
          oursRow(
            'pace',
            `v3 stream at ${pace}×, ${name} after ~1 s of audio: audio heard ÷ generated (lowest–highest of ${faultItems})`,
            `${worst.toFixed(2)}–${most.toFixed(2)}`,
            { text: '0.90–1.10', met: meets(worst, { min: 0.9 }) === true && most <= 1.1 },
          ),
        );
      }
    }
  } finally {
    await voice.stack.stop();
  }
  return rows;
}
