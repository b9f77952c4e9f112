/**
 * Notice lag and status polls per generation: the bot's TTS client (its production settings
 * and limits) against the naive client, side by side on the emulator at real time, one
 * generation at a time and 20 at once on one key.
 */
import type { TtsClient } from '../src/tts/index.ts';
import { startEmulator } from '../tools/emulator/index.ts';
import { benchText, benchUser, count429, type Notice, noticeOf } from './emulator-log.ts';
import { naiveGenerate } from './naive.ts';
import { productionClients } from './production-client.ts';
import {
  formatNumber,
  formatRatio,
  formatSummary,
  mean,
  meets,
  type Row,
  responses429Row,
  summarize,
} from './stats.ts';

const VOICE = 'af_3kbq21leo';
/** Lengths cycle through these (800 + 15 ms per character on the emulator: 1.25 s to 4.55 s). */
const LENGTHS = [30, 45, 60, 80, 100, 130, 160, 200, 250];

/** Sizes of the polling runs. */
export interface PollingPlan {
  /** Generations one at a time before measuring (the bot learns generation times from them). */
  readonly warmUp: number;
  readonly oneAtATime: number;
  readonly atOnce: number;
}

/** Runs the polling benchmark and returns its rows. */
export async function pollingBench(plan: PollingPlan): Promise<Row[]> {
  const ours = [benchUser('ours_a'), benchUser('ours_b'), benchUser('ours_burst')];
  const naive = [benchUser('naive_a'), benchUser('naive_b'), benchUser('naive_burst')];
  const emulator = await startEmulator({
    synth: 'tone',
    users: [...ours, ...naive],
    maxLogEntries: 200_000,
  });
  const clients = productionClients(emulator);
  const client = (i: number) => clients.forKey(ours[i]?.apiKey ?? '');
  try {
    // One at a time: ours and naive run side by side, each alternating two keys so that a
    // generation every ~2 s stays under the 20 submits a minute of one key.
    const runOurs = async (): Promise<string[]> => {
      const ids: string[] = [];
      for (let i = 0; i < plan.warmUp + plan.oneAtATime; i++) {
        const id = await generateOne(client(i % 2), benchText(lengthAt(i), i));
        if (i >= plan.warmUp) ids.push(id);
      }
      return ids;
    };
    const runNaive = async (): Promise<string[]> => {
      const ids: string[] = [];
      for (let i = 0; i < plan.oneAtATime; i++) {
        const user = naive[i % 2] ?? benchUser('naive_a');
        const done = await naiveGenerate({
          baseUrl: emulator.baseUrl,
          apiKey: user.apiKey,
          text: benchText(lengthAt(i + plan.warmUp), i),
          voiceId: VOICE,
        });
        ids.push(done.generationId);
      }
      return ids;
    };
    const [oursSingle, naiveSingle] = await Promise.all([runOurs(), runNaive()]);

    // 20 at once on a fresh key: its polls start from the prior (each key learns its own times).
    const burstLengths = Array.from({ length: plan.atOnce }, (_, i) => lengthAt(i * 2));
    const [oursBurst, naiveBurst] = await Promise.all([
      Promise.all(
        burstLengths.map((length, i) => generateOne(client(2), benchText(length, 1000 + i))),
      ),
      Promise.all(
        burstLengths.map((length, i) =>
          naiveGenerate({
            baseUrl: emulator.baseUrl,
            apiKey: naive[2]?.apiKey ?? '',
            text: benchText(length, 1000 + i),
            voiceId: VOICE,
          }).then((r) => r.generationId),
        ),
      ),
    ]);
    const log = emulator.requests;
    const notices = (ids: readonly string[]): Notice[] =>
      ids.flatMap((id) => noticeOf(emulator, log, id) ?? []);
    const rows: Row[] = [];
    const add = (
      label: string,
      oursNotices: Notice[],
      naiveNotices: Notice[],
      lagTarget: number,
    ): void => {
      const lagOurs = summarize(oursNotices.map((n) => n.lagMs));
      const lagNaive = summarize(naiveNotices.map((n) => n.lagMs));
      rows.push({
        section: 'Polling',
        measure: `${label}: notice lag (median / p95, n=${lagOurs.n})`,
        ours: formatSummary(lagOurs),
        naive: formatSummary(lagNaive),
        ratio: formatRatio(lagOurs.p95, lagNaive.p95),
        target: `p95 ≤ ${lagTarget / 1000} s`,
        met: meets(lagOurs.p95, { max: lagTarget }),
      });
      const pollsOurs = mean(oursNotices.map((n) => n.polls));
      const pollsNaive = mean(naiveNotices.map((n) => n.polls));
      rows.push({
        section: 'Polling',
        measure: `${label}: status polls per generation`,
        ours: formatNumber(pollsOurs),
        naive: formatNumber(pollsNaive),
        ratio: formatRatio(pollsOurs, pollsNaive),
        target: label === 'one at a time' ? '≤ 1.5' : '',
        met: label === 'one at a time' ? meets(pollsOurs, { max: 1.5 }) : undefined,
      });
    };
    add('one at a time', notices(oursSingle), notices(naiveSingle), 1000);
    add(`${plan.atOnce} at once`, notices(oursBurst), notices(naiveBurst), 1500);
    const ours429 = count429(log, ours);
    const naive429 = count429(log, naive);
    rows.push(
      responses429Row(
        'Polling',
        { ours: ours429, naive: naive429 },
        'responses 429 (all runs above)',
      ),
    );
    return rows;
  } finally {
    await emulator.close();
  }
}

function lengthAt(i: number): number {
  return LENGTHS[i % LENGTHS.length] ?? 60;
}

async function generateOne(client: TtsClient, text: string): Promise<string> {
  const { generationId } = await client.generate({ text, voiceId: VOICE, model: 'base' });
  return generationId;
}
