/**
 * v3 pace (issue 28): `/say` voice items over v3 streams sent at 2×, 1× and 0.5× real time,
 * with 30 % jitter and a 1 s pause half-way: submit → first voice packet, and the audio heard
 * at the fake voice server over the audio generated (a tone of a known length a character).
 */
import { benchText, benchUser } from './emulator-log.ts';
import { formatSummary, meets, oursRow, type Row, summarize } from './stats.ts';
import { openV3Voice } from './v3-voice.ts';

const PACES = [2, 1, 0.5] as const;

/** Runs the pace benchmark: `items` voice items (after one warm-up) at each pace. */
export async function v3PaceBench(items: number): Promise<Row[]> {
  const rows: Row[] = [];
  for (const pace of PACES) {
    const user = benchUser(`v3_pace_${String(pace).replace('.', '_')}`);
    const voice = await openV3Voice(user, { speed: pace, pauseMs: 1000 });
    const firsts: number[] = [];
    const heard: number[] = [];
    try {
      for (let i = 0; i < items + 1; i++) {
        const said = await voice.say(benchText(40 + (i % 4) * 10, i + 100 * pace));
        const first = said.received.arrivals[0];
        if (i === 0 || first === undefined) continue;
        firsts.push(first - said.sentAt);
        heard.push(said.heard);
      }
    } finally {
      await voice.stack.stop();
    }
    const worst = Math.min(...heard);
    rows.push(
      oursRow(
        'pace',
        `v3 stream at ${pace}× real time (jitter 30 %, 1 s pause): submit → first voice packet (n=${firsts.length})`,
        formatSummary(summarize(firsts)),
      ),
      oursRow(
        'pace',
        `v3 stream at ${pace}× real time: audio heard ÷ audio generated (lowest of ${heard.length})`,
        worst.toFixed(2),
        { text: '≥ 0.95', met: meets(worst, { min: 0.95 }) },
      ),
    );
  }
  return rows;
}
