/**
 * What the many-voices bench (`bench/many-voices.ts`) runs: which sizes in which audio formats,
 * and how long each generation takes, chosen from `--quick` and the environment. Pure.
 */
import { seededRandom } from './chat-plan.ts';

/** Audio bytes the emulator serves (its `audioFormat`). */
export type VoicesFormat = 'wav' | 'mp3' | 'ogg';

/** One run: `servers` servers of the bot and as many of the plain bot, on audio in `format`. */
export interface VoicesRun {
  readonly servers: number;
  readonly format: VoicesFormat;
}

/** How long the emulator takes per generation: one fixed time, or a seeded spread per request. */
export type GenerationShape =
  | { readonly kind: 'fixed'; readonly ms: number }
  | { readonly kind: 'spread'; readonly minMs: number; readonly maxMs: number };

/** The default shape: each request draws 0.6–4 s, so servers asked at once finish apart. */
export const DEFAULT_GENERATION: GenerationShape = { kind: 'spread', minMs: 600, maxMs: 4000 };

/** The full run's WAV sizes; non-WAV formats run at {@link FORMAT_SERVERS} only. */
const FULL_SIZES = [12, 24, 48];
const FORMAT_SERVERS = 24;
const FORMATS: readonly VoicesFormat[] = ['wav', 'mp3', 'ogg'];

/**
 * The runs for `npm run bench -- --only voices`: WAV at 12, 24 and 48 servers and MP3 at 24, or
 * with `--quick` one size (`BENCH_VOICES_QUICK`, default 4) in WAV. `BENCH_VOICES_FORMATS`
 * (e.g. `wav`, `mp3`, `wav,mp3`) picks the formats of either.
 */
export function voicesRuns(quick: boolean, env: Readonly<Record<string, string | undefined>>) {
  const formats = parseFormats(env.BENCH_VOICES_FORMATS) ?? (quick ? ['wav'] : ['wav', 'mp3']);
  if (quick) {
    const servers = Number(env.BENCH_VOICES_QUICK ?? 4);
    if (!Number.isInteger(servers) || servers < 1) {
      throw new RangeError(`BENCH_VOICES_QUICK must be a whole number of servers, got ${servers}`);
    }
    return formats.map((format): VoicesRun => ({ servers, format }));
  }
  const runs: VoicesRun[] = [];
  if (formats.includes('wav'))
    runs.push(...FULL_SIZES.map((servers) => ({ servers, format: 'wav' as const })));
  for (const format of formats.filter((f) => f !== 'wav'))
    runs.push({ servers: FORMAT_SERVERS, format });
  return runs;
}

function parseFormats(text: string | undefined): VoicesFormat[] | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const formats = text.split(',').map((f) => f.trim().toLowerCase());
  for (const format of formats) {
    if (!FORMATS.includes(format as VoicesFormat)) {
      throw new RangeError(
        `BENCH_VOICES_FORMATS: unknown format "${format}" (${FORMATS.join(', ')})`,
      );
    }
  }
  return [...new Set(formats as VoicesFormat[])];
}

/**
 * The generation shape from `BENCH_VOICES_GENERATION`: unset or `spread` for the default spread,
 * `MIN-MAX` (ms) for another spread, a number of ms for a fixed time (`1500`: the shape before).
 */
export function generationShape(text: string | undefined): GenerationShape {
  if (text === undefined || text.trim() === '' || text.trim() === 'spread')
    return DEFAULT_GENERATION;
  const range = /^(\d+)\s*-\s*(\d+)$/.exec(text.trim());
  if (range !== null) {
    const minMs = Number(range[1]);
    const maxMs = Number(range[2]);
    if (minMs <= maxMs) return { kind: 'spread', minMs, maxMs };
  } else if (/^\d+$/.test(text.trim())) {
    return { kind: 'fixed', ms: Number(text.trim()) };
  }
  throw new RangeError(
    `BENCH_VOICES_GENERATION must be spread, MIN-MAX or a number of ms, got "${text}"`,
  );
}

/** The shape in words, for the rows ("generation 0.6–4 s per request, seeded"). */
export function describeShape(shape: GenerationShape): string {
  const s = (ms: number) => `${ms / 1000}`;
  return shape.kind === 'fixed'
    ? `generation ${s(shape.ms)} s for every request`
    : `generation ${s(shape.minMs)}–${s(shape.maxMs)} s per request, seeded`;
}

/** The seed of a run's generation times: the same run draws the same times whatever else runs. */
export function runSeed(run: VoicesRun): number {
  return 38_000 + run.servers * FORMATS.length + FORMATS.indexOf(run.format);
}

/**
 * The emulator's time per generation for one run: the n-th request it receives draws the n-th
 * value of a sequence seeded by `seed`, so a run's set of times is the same every time (which
 * server gets which depends on the order requests arrive).
 */
export function generationTimes(shape: GenerationShape, seed: number): () => number {
  if (shape.kind === 'fixed') return () => shape.ms;
  const next = seededRandom(seed);
  return () => Math.round(shape.minMs + next() * (shape.maxMs - shape.minMs));
}

/** What every server says in a many-voices or capacity run, and how long generations take. */
export interface SpokenPlan {
  /** Characters of the long sentence (60 ms of tone each: 158 ≈ 9.5 s). */
  readonly longChars: number;
  /** The short lines each server says back to back (the first is also the first, unmeasured or warm-up, line). */
  readonly shortChars: readonly number[];
  readonly generation?: GenerationShape;
}
