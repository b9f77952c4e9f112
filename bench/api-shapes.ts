/**
 * Issue 29: the poll schedule against APIs of other shapes than its prior (800 ms + 15 ms per
 * character): one emulator per shape, the bot's TTS client (production settings, a fresh key:
 * nothing learned) and the naive client side by side on it, one generation at a time each.
 * Fresh: the first 6 generations; warm: the ones after. Every shape runs at once (each on its
 * own emulator), so the section takes as long as its slowest shape.
 */
import { defaultGenerationMs, type Model, startEmulator } from '../tools/emulator/index.ts';
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
  summarize,
} from './stats.ts';

const VOICE = 'af_3kbq21leo';
/** Lengths cycle through these: 30 to 250 characters. */
const LENGTHS = [60, 200, 40, 130, 250, 90, 160, 30, 110, 220, 75, 180];
const FRESH = 6;
/** The bot's notice lag p95 must be at most this share of the naive client's. */
const LAG_SHARE = 0.5;

/** Generation time in ms of one request, given how far through the run it is (0 to 1). */
type ShapeMs = (model: Model, length: number, progress: number, normal: () => number) => number;

/** The matrix of issue 29. */
export const API_SHAPES: readonly { readonly name: string; readonly ms: ShapeMs }[] = [
  { name: 'the prior’s own (800 ms + 15/char)', ms: (m, n) => defaultGenerationMs(m, n) },
  { name: '5× faster', ms: (m, n) => defaultGenerationMs(m, n) / 5 },
  { name: '2× slower', ms: (m, n) => defaultGenerationMs(m, n) * 2 },
  {
    name: 'the prior, log-normal jitter σ = 0.5',
    ms: (m, n, _p, normal) => defaultGenerationMs(m, n) * Math.exp(0.5 * normal()),
  },
  { name: 'a fixed 4 s', ms: () => 4000 },
  {
    name: 'slowing from 1× to 3× during the run',
    ms: (m, n, progress) => defaultGenerationMs(m, n) * (1 + 2 * progress),
  },
];

/** Sizes of the run. */
export interface ShapesPlan {
  /** Generations per side and shape (the first 6 are the fresh ones). */
  readonly count: number;
}

/** Runs every shape at once and returns two rows per shape and cell (polls, lag) and a 429 row. */
export async function apiShapesBench(plan: ShapesPlan): Promise<Row[]> {
  const results = await Promise.all(API_SHAPES.map((shape, i) => runShape(shape, i, plan)));
  return results.flat();
}

async function runShape(
  shape: (typeof API_SHAPES)[number],
  index: number,
  plan: ShapesPlan,
): Promise<Row[]> {
  const ours = benchUser(`shape${index}_bot`);
  const naive = benchUser(`shape${index}_naive`);
  const normal = seededNormal(29 + index);
  // Drift runs over the time the naive side needs at the prior's pace (1 s polls included).
  const expectedRunMs =
    LENGTHS.reduce((sum, n) => sum + defaultGenerationMs('base', n) + 500, 0) *
    (plan.count / LENGTHS.length) *
    2;
  let startedAt = Date.now();
  const emulator = await startEmulator({
    synth: 'tone',
    users: [ours, naive],
    maxLogEntries: 100_000,
    generationMs: (model, length) =>
      shape.ms(model, length, Math.min(1, (Date.now() - startedAt) / expectedRunMs), normal),
  });
  try {
    const client = productionClients(emulator).forKey(ours.apiKey);
    startedAt = Date.now();
    const runOurs = async (): Promise<string[]> => {
      const ids: string[] = [];
      for (let i = 0; i < plan.count; i++) {
        const text = benchText(lengthAt(i), i);
        const { generationId } = await client.generate({ text, voiceId: VOICE, model: 'base' });
        ids.push(generationId);
      }
      return ids;
    };
    const runNaive = async (): Promise<string[]> => {
      const ids: string[] = [];
      for (let i = 0; i < plan.count; i++) {
        const done = await naiveGenerate({
          baseUrl: emulator.baseUrl,
          apiKey: naive.apiKey,
          text: benchText(lengthAt(i), 100 + i),
          voiceId: VOICE,
        });
        ids.push(done.generationId);
      }
      return ids;
    };
    const [oursIds, naiveIds] = await Promise.all([runOurs(), runNaive()]);
    const log = emulator.requests;
    const notices = (ids: readonly string[]): (Notice | undefined)[] =>
      ids.map((id) => noticeOf(emulator, log, id));
    const oursNotices = notices(oursIds);
    const naiveNotices = notices(naiveIds);
    const rows: Row[] = [];
    const cell = (label: string, from: number, to: number, pollTarget: number): void => {
      const o = oursNotices.slice(from, to).filter((n) => n !== undefined);
      const v = naiveNotices.slice(from, to).filter((n) => n !== undefined);
      const pollsOurs = mean(o.map((n) => n.polls));
      const pollsNaive = mean(v.map((n) => n.polls));
      const lagOurs = summarize(o.map((n) => n.lagMs));
      const lagNaive = summarize(v.map((n) => n.lagMs));
      const measure = `${shape.name}, ${label} (n=${o.length})`;
      rows.push(
        {
          section: 'API shapes',
          measure: `${measure}: status polls per generation`,
          ours: formatNumber(pollsOurs),
          naive: formatNumber(pollsNaive),
          ratio: formatRatio(pollsOurs, pollsNaive),
          target: `≤ ${pollTarget}`,
          met: meets(pollsOurs, { max: pollTarget }),
        },
        {
          section: 'API shapes',
          measure: `${measure}: notice lag (median / p95)`,
          ours: formatSummary(lagOurs),
          naive: formatSummary(lagNaive),
          ratio: formatRatio(lagOurs.p95, lagNaive.p95),
          target: `p95 ≤ ${LAG_SHARE}× naive`,
          met: o.length < to - from ? false : meets(lagOurs.p95, { max: LAG_SHARE * lagNaive.p95 }),
        },
      );
    };
    cell(`fresh: first ${FRESH} on a new key`, 0, FRESH, 1.5);
    cell(`warm: the ${plan.count - FRESH} after`, FRESH, plan.count, 1.3);
    const ours429 = count429(log, [ours]);
    rows.push({
      section: 'API shapes',
      measure: `${shape.name}: responses 429`,
      ours: String(ours429),
      naive: String(count429(log, [naive])),
      ratio: '',
      target: '0',
      met: ours429 === 0,
    });
    return rows;
  } finally {
    await emulator.close();
  }
}

function lengthAt(i: number): number {
  return LENGTHS[i % LENGTHS.length] ?? 60;
}

/** Standard normal draws from a seeded generator (Box–Muller), so runs are comparable. */
function seededNormal(seed: number): () => number {
  let state = seed >>> 0 || 1;
  const uniform = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return (state + 0.5) / 2 ** 32;
  };
  return () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
}
