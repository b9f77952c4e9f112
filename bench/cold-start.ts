/**
 * Cold start: the real bot freshly started on an empty store (nothing learned about the key),
 * its first `/say` one at a time, against the naive client in the same run: status polls per
 * generation and notice lag, which a bot polling from a prior must keep near a warm one's.
 */
import type { EmulatorOptions } from '../tools/emulator/index.ts';
import { setApiKey, startLocalStack } from '../tools/local-stack/index.ts';
import { benchText, benchUser, type Notice, noticeOf, polledGenerations } from './emulator-log.ts';
import { naiveGenerate } from './naive.ts';
import {
  formatNumber,
  formatRatio,
  formatSummary,
  mean,
  meets,
  type Row,
  summarize,
} from './stats.ts';

/** Lengths of the texts, in order (800 + 15 ms per character on the emulator: 1.3 s to 4.6 s). */
const LENGTHS = [60, 200, 40, 130, 250, 90, 160, 30];
/** The bot's notice lag p95 must be at most this share of the naive client's. */
const LAG_SHARE = 0.6;

/**
 * Runs the cold-start benchmark with `count` generations on each side and returns its rows;
 * `generationMs` gives the emulator another shape than the bot's prior (the emulator's default).
 */
export async function coldStartBench(
  count: number,
  generationMs?: EmulatorOptions['generationMs'],
): Promise<Row[]> {
  const botUser = benchUser('cold_bot');
  const naiveUser = benchUser('cold_naive');
  const stack = await startLocalStack({
    emulator: {
      users: [botUser, naiveUser],
      maxLogEntries: 100_000,
      ...(generationMs === undefined ? {} : { generationMs }),
    },
  });
  const { discord, emulator } = stack;
  try {
    await setApiKey(discord, botUser.apiKey);

    const runOurs = async (): Promise<string[]> => {
      const ids: string[] = [];
      for (let i = 0; i < count; i++) {
        const before = new Set(polledGenerations(emulator.requests, [botUser]));
        const handle = discord.slash({
          user: 'member',
          name: 'say',
          options: { text: benchText(lengthAt(i), i), output: 'file' },
        });
        await handle.waitFor((event) => event.kind === 'edit' && event.files.length > 0, 60_000);
        const id = polledGenerations(emulator.requests, [botUser]).find((g) => !before.has(g));
        if (id !== undefined) ids.push(id);
      }
      return ids;
    };
    const runNaive = async (): Promise<string[]> => {
      const ids: string[] = [];
      for (let i = 0; i < count; i++) {
        const done = await naiveGenerate({
          baseUrl: emulator.baseUrl,
          apiKey: naiveUser.apiKey,
          text: benchText(lengthAt(i), 100 + i),
          voiceId: 'af_3kbq21leo',
        });
        ids.push(done.generationId);
      }
      return ids;
    };
    const [oursIds, naiveIds] = await Promise.all([runOurs(), runNaive()]);
    const notices = (ids: readonly string[]): Notice[] =>
      ids.flatMap((id) => noticeOf(emulator, emulator.requests, id) ?? []);
    const ours = notices(oursIds);
    const naive = notices(naiveIds);
    const label = `first ${count} /say after a fresh start (empty store), one at a time`;
    const pollsOurs = mean(ours.map((n) => n.polls));
    const pollsNaive = mean(naive.map((n) => n.polls));
    const lagOurs = summarize(ours.map((n) => n.lagMs));
    const lagNaive = summarize(naive.map((n) => n.lagMs));
    return [
      {
        section: 'Cold start',
        measure: `${label}: status polls per generation`,
        ours: formatNumber(pollsOurs),
        naive: formatNumber(pollsNaive),
        ratio: formatRatio(pollsOurs, pollsNaive),
        target: '≤ 1.5',
        met: meets(pollsOurs, { max: 1.5 }),
      },
      {
        section: 'Cold start',
        measure: `${label}: notice lag (median / p95, n=${lagOurs.n})`,
        ours: formatSummary(lagOurs),
        naive: formatSummary(lagNaive),
        ratio: formatRatio(lagOurs.p95, lagNaive.p95),
        target: `p95 ≤ ${LAG_SHARE}× naive`,
        met: lagOurs.n < count ? false : meets(lagOurs.p95, { max: LAG_SHARE * lagNaive.p95 }),
      },
    ];
  } finally {
    await stack.stop();
  }
}

function lengthAt(i: number): number {
  return LENGTHS[i % LENGTHS.length] ?? 60;
}
