import { describe, expect, test } from 'vitest';
/**
 * The poll schedule (PollScheduler with the estimator from the API's prior) against simulated APIs
 * of the shapes in issue 29's matrix, on a fake clock: fresh (the first 6 generations) and warm
 * (the 24 after), with the issue's targets (≤ 1.5 polls fresh, ≤ 1.3 warm, notice lag p95 ≤ 480 ms,
 * half of a 1 s poller's p95). The cells the current schedule misses are listed as todo with
 * their figures (docs/polling-schedule.md).
 */
import { API_PRIOR, GenerationEstimator } from '../../src/tts/estimator.ts';
import { PollScheduler } from '../../src/tts/poller.ts';
import type { GenerationRecord } from '../../src/tts/types.ts';
import { FakeClock } from '../support/fake-clock.ts';

/** A generation-time shape: ms for the i-th generation of `length` characters, `u` a standard normal draw. */
type Shape = (length: number, i: number, u: number) => number;

const prior = (n: number) => 800 + 15 * n;
/** The matrix of the bench (bench/api-shapes.ts), as pure functions of length, index and draw. */
const SHAPES: readonly (readonly [string, Shape])[] = [
  ['the prior', (n) => prior(n)],
  ['5x faster', (n) => prior(n) / 5],
  ['2x slower', (n) => prior(n) * 2],
  ['jitter sigma 0.5', (n, _i, u) => prior(n) * Math.exp(0.5 * u)],
  ['fixed 4 s', () => 4000],
  ['drift 1x to 3x', (n, i) => prior(n) * (1 + (2 * i) / 29)],
  ['1.5 s + 20/char', (n) => 1500 + 20 * n],
];

/** Runs `count` generations one at a time against a simulated API (fake clock, no sockets). */
async function simulate(count: number, shape: Shape, seed: number) {
  const clock = new FakeClock(0);
  const finishAt = new Map<string, number>();
  const polls: { id: string; at: number }[] = [];
  const poll = async (id: string): Promise<GenerationRecord> => {
    polls.push({ id, at: clock.now() });
    const done = clock.now() >= (finishAt.get(id) ?? Number.POSITIVE_INFINITY);
    return {
      generationId: id,
      status: done ? 'Completed' : 'Generating',
      audioUrl: done ? `http://media/${id}.wav` : null,
      model: 'base',
      error: null,
    };
  };
  const scheduler = new PollScheduler({
    poll,
    clock,
    estimator: new GenerationEstimator({ prior: API_PRIOR }),
    deadlineMs: 300_000,
    minIntervalMs: 1000,
    maxIntervalMs: 2000,
  });
  let state = seed >>> 0 || 1;
  const uniform = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return (state + 0.5) / 2 ** 32;
  };
  const results: { polls: number; lagMs: number }[] = [];
  for (let i = 0; i < count; i++) {
    const id = `base_${i}`;
    const length = 30 + Math.floor(uniform() * 221);
    const submittedAt = clock.now();
    const finishedAt =
      submittedAt + Math.max(50, Math.round(shape(length, i, normalQuantile(uniform()))));
    finishAt.set(id, finishedAt);
    const done = scheduler.track({
      generationId: id,
      model: 'base',
      textLength: length,
      submittedAt,
    });
    while (scheduler.size > 0) await clock.advance(10);
    await done;
    const mine = polls.filter((p) => p.id === id);
    results.push({ polls: mine.length, lagMs: (mine.at(-1)?.at ?? Number.NaN) - finishedAt });
    await clock.advance(200);
  }
  return results;
}

const mean = (values: number[]) => values.reduce((s, v) => s + v, 0) / values.length;
const p95 = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.ceil(values.length * 0.95) - 1] ?? Number.NaN;

/** A roughly standard normal draw from a uniform one (the logistic approximation of Φ⁻¹). */
function normalQuantile(p: number): number {
  return Math.log(p / (1 - p)) / 1.702;
}

/** Half a 1 s poller's notice lag p95 (about 950 ms). */
const LAG_TARGET_MS = 480;

/** The figures of one shape over three seeds: fresh (first 6) and warm (next 24). */
async function cells(shape: Shape) {
  const runs = [];
  for (const seed of [1, 2, 3]) {
    const results = await simulate(30, shape, seed);
    const fresh = results.slice(0, 6);
    const warm = results.slice(6);
    runs.push({
      freshPolls: mean(fresh.map((r) => r.polls)),
      freshLag: p95(fresh.map((r) => r.lagMs)),
      warmPolls: mean(warm.map((r) => r.polls)),
      warmLag: p95(warm.map((r) => r.lagMs)),
    });
  }
  return runs;
}

const shapeNamed = (name: string): Shape => SHAPES.find(([n]) => n === name)?.[1] ?? prior;

describe('the poll schedule against simulated APIs (fresh: 6 generations, warm: 24 after)', () => {
  test.each(['the prior', '5x faster'])('%s: every target met, fresh and warm', async (name) => {
    for (const run of await cells(shapeNamed(name))) {
      expect(run.freshPolls).toBeLessThanOrEqual(1.5);
      expect(run.warmPolls).toBeLessThanOrEqual(1.3);
      expect(run.freshLag).toBeLessThanOrEqual(LAG_TARGET_MS);
      expect(run.warmLag).toBeLessThanOrEqual(LAG_TARGET_MS);
    }
  });

  // Before re-checks kept to the lag budget, 2x slower read a warm lag p95 of 774 ms and
  // 1.5 s + 20/char a fresh one of 718 ms (the re-check after a missed first poll fell back to
  // the spec's 1–2 s cadence).
  test.each(['2x slower', 'fixed 4 s', '1.5 s + 20/char'])(
    '%s: warm polls and lag within the targets',
    async (name) => {
      for (const run of await cells(shapeNamed(name))) {
        expect(run.warmPolls).toBeLessThanOrEqual(1.3);
        expect(run.warmLag).toBeLessThanOrEqual(LAG_TARGET_MS);
      }
    },
  );

  test.each(['2x slower', 'drift 1x to 3x', '1.5 s + 20/char'])(
    '%s: fresh lag within the target (polls are not: see the todo)',
    async (name) => {
      for (const run of await cells(shapeNamed(name))) {
        expect(run.freshLag).toBeLessThanOrEqual(LAG_TARGET_MS);
      }
    },
  );

  test.each(SHAPES)(
    '%s: every generation is noticed once done, never before',
    async (_name, shape) => {
      const results = await simulate(30, shape, 7);
      expect(results.every((r) => r.polls >= 1 && r.lagMs >= 0)).toBe(true);
    },
  );

  // Missed (seed 1; docs/polling-schedule.md says why the fresh polls cannot be met with the
  // fresh lag on an API slower than the prior):
  test.todo('2x slower: fresh 2.50 polls');
  test.todo('1.5 s + 20/char (issue 29): fresh 2.17 polls');
  test.todo(
    'fixed 4 s: fresh 3.00 polls, lag p95 2801 ms (a slope from the prior, over-estimated)',
  );
  test.todo('drift 1x to 3x: fresh 2.17 polls; warm 4.00 polls (the fit trails the drift)');
  test.todo('jitter sigma 0.5: fresh 1.83 polls, lag 651 ms; warm 3.29 polls, lag 6746 ms');
});

describe.skipIf(process.env.SHAPES_PRINT === undefined)('figures', () => {
  test.each(SHAPES)('%s', async (name, shape) => {
    const rows: string[] = [];
    for (const seed of [1, 2, 3]) {
      const r = await simulate(30, shape, seed);
      const f = r.slice(0, 6);
      const w = r.slice(6);
      rows.push(
        `${name} ${seed}: fresh ${mean(f.map((x) => x.polls)).toFixed(2)} / ${Math.round(p95(f.map((x) => x.lagMs)))} | warm ${mean(w.map((x) => x.polls)).toFixed(2)} / ${Math.round(p95(w.map((x) => x.lagMs)))}`,
      );
    }
    console.log(rows.join('\n'));
    if (process.env.SHAPES_DETAIL === name) {
      const r = await simulate(30, shape, Number(process.env.SHAPES_SEED ?? 1));
      console.log(r.map((x, i) => `${i}:${x.polls}/${Math.round(x.lagMs)}`).join(' '));
    }
  });
});
