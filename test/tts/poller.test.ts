import { describe, expect, test } from 'vitest';
import { TtsError } from '../../src/tts/errors.ts';
import { API_PRIOR, GenerationEstimator } from '../../src/tts/estimator.ts';
import { PollScheduler, recheckAfter } from '../../src/tts/poller.ts';
import type { GenerationRecord } from '../../src/tts/types.ts';
import { FakeClock } from '../support/fake-clock.ts';

/** A fake API: each generation completes `durationMs` after the test says it was submitted. */
function fakeApi(clock: FakeClock) {
  const finishAt = new Map<string, number>();
  const special = new Map<string, Partial<GenerationRecord> | Error>();
  const polls: { id: string; at: number }[] = [];
  const poll = async (id: string): Promise<GenerationRecord> => {
    polls.push({ id, at: clock.now() });
    const override = special.get(id);
    if (override instanceof Error) throw override;
    const done = clock.now() >= (finishAt.get(id) ?? Number.POSITIVE_INFINITY);
    return {
      generationId: id,
      status: done ? 'Completed' : 'Generating',
      audioUrl: done ? `http://media/${id}.wav` : null,
      model: 'base',
      error: null,
      ...override,
    };
  };
  return { finishAt, special, polls, poll };
}

function scheduler(
  clock: FakeClock,
  poll: (id: string) => Promise<GenerationRecord>,
  estimator = new GenerationEstimator(),
  deadlineMs = 300_000,
) {
  return new PollScheduler({
    poll,
    clock,
    estimator,
    deadlineMs,
    minIntervalMs: 1000,
    maxIntervalMs: 2000,
  });
}

/**
 * Runs `count` generations one at a time through one scheduler (each done `durationOf(length)`
 * after submission) and returns, per generation, its polls and how long after it finished the
 * first poll that saw it done was sent.
 */
async function oneAtATime(
  count: number,
  lengthOf: (i: number) => number,
  durationOf: (length: number, i: number) => number,
  estimator = new GenerationEstimator(),
) {
  const clock = new FakeClock(0);
  const api = fakeApi(clock);
  const polls = scheduler(clock, api.poll, estimator);
  const results: { polls: number; lagMs: number }[] = [];
  for (let i = 0; i < count; i++) {
    const id = `base_${i}`;
    const textLength = lengthOf(i);
    const submittedAt = clock.now();
    const finishedAt = submittedAt + durationOf(textLength, i);
    api.finishAt.set(id, finishedAt);
    const done = polls.track({
      learn: true,
      generationId: id,
      model: 'base',
      textLength,
      submittedAt,
    });
    while (polls.size > 0) await clock.advance(100);
    await done;
    const mine = api.polls.filter((p) => p.id === id);
    const seen = mine.find((p) => p.at >= finishedAt)?.at ?? Number.NaN;
    results.push({ polls: mine.length, lagMs: seen - finishedAt });
  }
  return results;
}

function p95(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.ceil(sorted.length * 0.95) - 1] ?? Number.NaN;
}

describe('PollScheduler', () => {
  test('polls at the 1–2 s cadence until Completed', async () => {
    const clock = new FakeClock(0);
    const api = fakeApi(clock);
    api.finishAt.set('base_a', 4500);
    const done = scheduler(clock, api.poll).track({
      learn: true,
      generationId: 'base_a',
      model: 'base',
      textLength: 40,
      submittedAt: 0,
    });
    await clock.advance(10_000);
    await expect(done).resolves.toBe('http://media/base_a.wav');
    const gaps = api.polls.map((p, i) => p.at - (api.polls[i - 1]?.at ?? 0));
    expect(gaps.every((gap) => gap >= 1000 && gap <= 2000)).toBe(true);
    expect(api.polls.at(-1)?.at).toBeLessThanOrEqual(6500);
  });

  test('polls first when the learned estimate says the task is done', async () => {
    const clock = new FakeClock(0);
    const api = fakeApi(clock);
    const estimator = new GenerationEstimator();
    for (const length of [100, 200, 300]) {
      const ms = 1000 + length * 40;
      estimator.observe('base', length, { afterMs: ms - 100, byMs: ms + 100 });
    }
    const polls = scheduler(clock, api.poll, estimator);
    api.finishAt.set('base_b', 9000);
    const done = polls.track({
      learn: true,
      generationId: 'base_b',
      model: 'base',
      textLength: 200,
      submittedAt: 0,
    });
    await clock.advance(12_000);
    await expect(done).resolves.toContain('base_b');
    expect(api.polls.map((p) => p.at)).toEqual([9000]);
  });

  test('a timed first poll that finds the task running looks again soon, not a full interval later', async () => {
    const clock = new FakeClock(0);
    const api = fakeApi(clock);
    const estimator = new GenerationEstimator();
    estimator.observe('base', 50, { afterMs: 1900, byMs: 2100 });
    api.finishAt.set('base_r', 2100);
    const done = scheduler(clock, api.poll, estimator).track({
      learn: true,
      generationId: 'base_r',
      model: 'base',
      textLength: 50,
      submittedAt: 0,
    });
    await clock.advance(5000);
    await expect(done).resolves.toContain('base_r');
    expect(api.polls.map((p) => p.at)).toEqual([2000, 2400]);
  });

  test('an estimate far beyond the cadence waits at most five intervals before the first poll', async () => {
    const clock = new FakeClock(0);
    const api = fakeApi(clock);
    const estimator = new GenerationEstimator();
    estimator.observe('base', 10, { afterMs: 59_000, byMs: 61_000 });
    api.finishAt.set('base_c', 500);
    const done = scheduler(clock, api.poll, estimator).track({
      learn: true,
      generationId: 'base_c',
      model: 'base',
      textLength: 10,
      submittedAt: 0,
    });
    await clock.advance(20_000);
    await expect(done).resolves.toContain('base_c');
    expect(api.polls.map((p) => p.at)).toEqual([10_000]);
  });

  test('a slow model: once its latest generations ran past that cap, the first poll waits for the estimate', async () => {
    const clock = new FakeClock(0);
    const api = fakeApi(clock);
    const estimator = new GenerationEstimator();
    // Two generations seen running at 18.8 s and done by 19.2 s: about 19 s at this length.
    for (let i = 0; i < 2; i++) estimator.observe('base', 100, { afterMs: 18_800, byMs: 19_200 });
    api.finishAt.set('base_slow', 19_000);
    const done = scheduler(clock, api.poll, estimator).track({
      learn: true,
      generationId: 'base_slow',
      model: 'base',
      textLength: 100,
      submittedAt: 0,
    });
    await clock.advance(30_000);
    await expect(done).resolves.toContain('base_slow');
    // Capped at 10 s, it would have been polled 23 times (every 400 ms from 10 s to 19 s).
    expect(api.polls.length).toBeLessThanOrEqual(2);
    expect(api.polls[0]?.at).toBeGreaterThanOrEqual(18_800);
  });

  test('after a slow spell, the first generation found done at its first poll brings the cap back', async () => {
    const clock = new FakeClock(0);
    const api = fakeApi(clock);
    const estimator = new GenerationEstimator();
    // Ten generations of about 2 s, then two of about 19 s (a slow spell); then 2 s again.
    for (let i = 0; i < 10; i++) estimator.observe('base', 100, { afterMs: 1900, byMs: 2100 });
    for (let i = 0; i < 2; i++) estimator.observe('base', 100, { afterMs: 18_800, byMs: 19_200 });
    const polls = scheduler(clock, api.poll, estimator);
    const firstPolls: number[] = [];
    for (let i = 0; i < 4; i++) {
      const id = `base_back_${i}`;
      const submittedAt = clock.now();
      api.finishAt.set(id, submittedAt + 2000);
      const done = polls.track({
        learn: true,
        generationId: id,
        model: 'base',
        textLength: 100,
        submittedAt,
      });
      while (polls.size > 0) await clock.advance(100);
      await done;
      firstPolls.push((api.polls.find((p) => p.id === id)?.at ?? Number.NaN) - submittedAt);
    }
    // The first one cannot be told from the slow spell; it was found done, so the next are
    // polled within the 10 s cap (the lift once took the largest share: 18.8 s for two).
    expect(firstPolls[0]).toBeGreaterThan(10_000);
    expect(firstPolls.slice(1).every((ms) => ms <= 10_000)).toBe(true);
  });

  test('a lift of the cap stays within three times it, however slow the latest generations were', async () => {
    const clock = new FakeClock(0);
    const api = fakeApi(clock);
    const estimator = new GenerationEstimator();
    for (let i = 0; i < 2; i++) estimator.observe('base', 100, { afterMs: 59_000, byMs: 61_000 });
    api.finishAt.set('base_60s', 25_000);
    const done = scheduler(clock, api.poll, estimator).track({
      learn: true,
      generationId: 'base_60s',
      model: 'base',
      textLength: 100,
      submittedAt: 0,
    });
    await clock.advance(70_000);
    await expect(done).resolves.toContain('base_60s');
    expect(api.polls.map((p) => p.at)).toEqual([30_000]);
  });

  test('shares one request at a time between generations, earliest due first', async () => {
    const clock = new FakeClock(0);
    const api = fakeApi(clock);
    const polls = scheduler(clock, api.poll);
    const ids = ['base_1', 'base_2', 'base_3'];
    for (const id of ids) api.finishAt.set(id, 3000);
    const all = ids.map((generationId) =>
      polls.track({ learn: true, generationId, model: 'base', textLength: 30, submittedAt: 0 }),
    );
    await clock.advance(10_000);
    await Promise.all(all);
    expect(new Set(api.polls.map((p) => p.id))).toEqual(new Set(ids));
    expect(polls.size).toBe(0);
  });

  test.each([
    [
      'Failed',
      { status: 'Failed', error: 'voice unavailable' },
      'generation_failed',
      /failed: voice unavailable/,
    ],
    ['unknown status', { status: 'Exploded' }, 'generation_failed', /unknown status "Exploded"/],
    [
      'Completed without url',
      { status: 'Completed', audioUrl: null },
      'malformed_response',
      /without an audio address/,
    ],
  ])('%s is a reported failure, not polled forever', async (_name, override, kind, message) => {
    const clock = new FakeClock(0);
    const api = fakeApi(clock);
    api.special.set('base_x', override);
    const done = scheduler(clock, api.poll).track({
      learn: true,
      generationId: 'base_x',
      model: 'base',
      textLength: 30,
      submittedAt: 0,
    });
    const settled = expect(done).rejects.toMatchObject({
      kind,
      generationId: 'base_x',
      message: expect.stringMatching(message),
    });
    await clock.advance(5000);
    await settled;
    expect(api.polls).toHaveLength(1);
  });

  test('a task still generating after the deadline times out with its id', async () => {
    const clock = new FakeClock(0);
    const api = fakeApi(clock);
    const polls = new PollScheduler({
      poll: api.poll,
      clock,
      estimator: new GenerationEstimator(),
      deadlineMs: 20_000,
      minIntervalMs: 1000,
      maxIntervalMs: 2000,
    });
    const done = polls.track({
      learn: true,
      generationId: 'base_slow',
      model: 'base',
      textLength: 30,
      submittedAt: 0,
    });
    const settled = expect(done).rejects.toMatchObject({
      kind: 'generation_timeout',
      generationId: 'base_slow',
    });
    await clock.advance(30_000);
    await settled;
    // At the 1–2 s cadence, and the poll that ends it was sent after the deadline.
    expect(api.polls.length).toBeGreaterThanOrEqual(11);
    expect(api.polls.length).toBeLessThanOrEqual(21);
    expect(api.polls.at(-1)?.at).toBeGreaterThan(20_000);
    expect(api.polls.at(-2)?.at).toBeLessThanOrEqual(20_000);
  });

  test.each<[string, 'Completed' | 'Generating', string | RegExp]>([
    ['done by now: delivered', 'Completed', 'http://media/base_old.wav'],
    ['still running: then timed out', 'Generating', /still running after 5 minutes/],
  ])(
    'resumed long after its submission (past the deadline), it is polled once first: %s',
    async (_name, status, outcome) => {
      const clock = new FakeClock(3_600_000);
      const api = fakeApi(clock);
      // Submitted an hour ago (before a restart); the deadline is 5 minutes.
      api.finishAt.set('base_old', status === 'Completed' ? 0 : Number.POSITIVE_INFINITY);
      const done = scheduler(clock, api.poll, new GenerationEstimator(), 300_000).track({
        learn: true,
        generationId: 'base_old',
        model: 'base',
        textLength: 40,
        submittedAt: 0,
      });
      const settled =
        typeof outcome === 'string'
          ? expect(done).resolves.toBe(outcome)
          : expect(done).rejects.toMatchObject({
              kind: 'generation_timeout',
              message: expect.stringMatching(outcome),
            });
      await clock.advance(5000);
      await settled;
      expect(api.polls).toHaveLength(1);
    },
  );

  test('an outage longer than the deadline does not end a generation: the first answer after it decides', async () => {
    const clock = new FakeClock(0);
    const api = fakeApi(clock);
    const transient: unknown[] = [];
    const polls = new PollScheduler({
      poll: api.poll,
      clock,
      estimator: new GenerationEstimator(),
      deadlineMs: 5000,
      minIntervalMs: 1000,
      maxIntervalMs: 2000,
      onTransientError: (e) => transient.push(e),
    });
    // Done after 3 s, but the API is unreachable from the first poll until 60 s.
    api.finishAt.set('base_net', 3000);
    api.finishAt.set('base_run', Number.POSITIVE_INFINITY);
    for (const id of ['base_net', 'base_run']) {
      api.special.set(id, new TtsError('network', 'connection refused'));
    }
    const done = polls.track({
      learn: true,
      generationId: 'base_net',
      model: 'base',
      textLength: 40,
      submittedAt: 0,
    });
    const running = polls.track({
      learn: true,
      generationId: 'base_run',
      model: 'base',
      textLength: 40,
      submittedAt: 0,
    });
    const timedOut = expect(running).rejects.toMatchObject({ kind: 'generation_timeout' });
    await clock.advance(60_000);
    expect(polls.size).toBe(2);
    const failedPolls = api.polls.length;
    api.special.clear();
    await clock.advance(60_000);
    await expect(done).resolves.toBe('http://media/base_net.wav');
    await timedOut;
    // One answer each after the outage: Completed delivers, Generating (past the deadline) ends.
    expect(
      api.polls
        .slice(failedPolls)
        .map((p) => p.id)
        .sort(),
    ).toEqual(['base_net', 'base_run']);
    expect(transient.length).toBeGreaterThanOrEqual(4);
  });

  test('a poll answered late (it waited for budget) still counts its answer', async () => {
    const clock = new FakeClock(0);
    const api = fakeApi(clock);
    api.finishAt.set('base_wait', 2000);
    // Every poll waits 30 s for the status budget, then is answered.
    const slowPoll = async (id: string): Promise<GenerationRecord> => {
      await clock.sleep(30_000);
      return api.poll(id);
    };
    const done = scheduler(clock, slowPoll, new GenerationEstimator(), 5000).track({
      learn: true,
      generationId: 'base_wait',
      model: 'base',
      textLength: 40,
      submittedAt: 0,
    });
    await clock.advance(40_000);
    await expect(done).resolves.toBe('http://media/base_wait.wav');
  });

  test('transient poll errors are retried; permanent ones end the generation', async () => {
    const clock = new FakeClock(0);
    const api = fakeApi(clock);
    const transient: unknown[] = [];
    const polls = new PollScheduler({
      poll: api.poll,
      clock,
      estimator: new GenerationEstimator(),
      deadlineMs: 300_000,
      minIntervalMs: 1000,
      maxIntervalMs: 2000,
      onTransientError: (e) => transient.push(e),
    });
    api.special.set('base_t', new TtsError('server_error', 'boom'));
    api.special.set('base_p', new TtsError('access_denied', 'Access denied for this generation'));
    api.finishAt.set('base_t', 0);
    const t = polls.track({
      learn: true,
      generationId: 'base_t',
      model: 'base',
      textLength: 30,
      submittedAt: 0,
    });
    const p = polls.track({
      learn: true,
      generationId: 'base_p',
      model: 'base',
      textLength: 30,
      submittedAt: 0,
    });
    const denied = expect(p).rejects.toMatchObject({ kind: 'access_denied' });
    await clock.advance(1000);
    await denied;
    api.special.delete('base_t');
    await clock.advance(10_000);
    await expect(t).resolves.toContain('base_t');
    expect(transient.length).toBeGreaterThanOrEqual(1);
  });

  test('an aborted generation stops being polled', async () => {
    const clock = new FakeClock(0);
    const api = fakeApi(clock);
    const controller = new AbortController();
    const done = scheduler(clock, api.poll).track(
      { learn: true, generationId: 'base_s', model: 'base', textLength: 30, submittedAt: 0 },
      controller.signal,
    );
    await clock.advance(2500);
    const before = api.polls.length;
    controller.abort(new Error('skipped'));
    await expect(done).rejects.toThrow('skipped');
    await clock.advance(10_000);
    expect(api.polls.length).toBe(before);
  });
});

describe('PollScheduler learning generation times (one at a time)', () => {
  // The emulator's default time, and one with a longer fixed cost and a steeper slope.
  test.each([
    ['one length, 800 + 15/char', () => 40, (n: number) => 800 + 15 * n],
    [
      'lengths 30–300, 800 + 15/char',
      (i: number) => 30 + ((i * 97) % 271),
      (n: number) => 800 + 15 * n,
    ],
    [
      'lengths 30–300, 1.5 s + 25/char',
      (i: number) => 30 + ((i * 53) % 271),
      (n: number) => 1500 + 25 * n,
    ],
    ['sub-second, 300 + 2/char', (i: number) => 30 + ((i * 31) % 200), (n: number) => 300 + 2 * n],
  ])(
    '%s: after a warm-up, at most 1.5 polls per generation and p95 notice lag within 1 s',
    async (_name, lengthOf, durationOf) => {
      const results = (await oneAtATime(50, lengthOf, durationOf)).slice(10);
      const polls = results.reduce((sum, r) => sum + r.polls, 0) / results.length;
      expect(polls).toBeLessThanOrEqual(1.5);
      expect(p95(results.map((r) => r.lagMs))).toBeLessThanOrEqual(1000);
      expect(results.every((r) => r.lagMs >= 0)).toBe(true);
    },
  );

  test.each([
    ['faster', 3000, 1200],
    ['slower', 1200, 3000],
  ])('generation times that become %s are followed', async (_name, before, after) => {
    const results = await oneAtATime(
      60,
      () => 60,
      (_length, i) => (i < 30 ? before : after),
    );
    const settled = results.slice(45);
    expect(settled.reduce((sum, r) => sum + r.polls, 0) / settled.length).toBeLessThanOrEqual(1.5);
    expect(p95(settled.map((r) => r.lagMs))).toBeLessThanOrEqual(1000);
  });
});

describe('PollScheduler starting from the API’s prior (800 + 15/char)', () => {
  const mean = (results: { polls: number }[]) =>
    results.reduce((sum, r) => sum + r.polls, 0) / results.length;

  test('an API of that shape is polled well from the first generation', async () => {
    const results = await oneAtATime(
      6,
      (i) => [60, 200, 40, 130, 250, 90][i] ?? 60,
      (n, i) => 800 + 15 * n + ((i * 37) % 60),
      new GenerationEstimator({ prior: API_PRIOR }),
    );
    expect(mean(results)).toBeLessThanOrEqual(1.5);
    expect(p95(results.map((r) => r.lagMs))).toBeLessThanOrEqual(500);
  });

  test('an API five times faster (the time-scaled benches): within a second of the finish from the first generation', async () => {
    const results = await oneAtATime(
      12,
      (i) => 100 + ((i * 97) % 500),
      (n) => 0.2 * (800 + 15 * n),
      new GenerationEstimator({ prior: API_PRIOR }),
    );
    // Polled at the prior's pace, each was seen 1–7 s after it finished until the prior faded.
    expect(Math.max(...results.map((r) => r.lagMs))).toBeLessThanOrEqual(1000);
    expect(mean(results)).toBeLessThanOrEqual(2);
  });

  test('a probe that finds the task running polls next where the estimate expects it done', async () => {
    const clock = new FakeClock(0);
    const api = fakeApi(clock);
    const polls = scheduler(clock, api.poll, new GenerationEstimator({ prior: API_PRIOR }));
    // 40 characters: the prior says 1400 ms; the task takes 1500.
    api.finishAt.set('probe_a', 1500);
    const done = polls.track({
      learn: true,
      generationId: 'probe_a',
      model: 'base',
      textLength: 40,
      submittedAt: 0,
    });
    await clock.advance(3000);
    await done;
    // The probe at a quarter, the first poll at the estimate, then a re-check within the lag budget (400 ms).
    expect(api.polls.map((p) => p.at)).toEqual([350, 1400, 1800]);
  });

  test.each([
    ['ten times faster', (n: number) => 80 + 1.5 * n],
    ['flat 150 ms', () => 150],
    ['twice as slow', (n: number) => 1600 + 30 * n],
    ['1.5 s + 25/char', (n: number) => 1500 + 25 * n],
  ])('an API %s: the prior is forgotten within a warm-up', async (_name, durationOf) => {
    const results = await oneAtATime(
      40,
      (i) => 30 + ((i * 97) % 271),
      durationOf,
      new GenerationEstimator({ prior: API_PRIOR }),
    );
    const settled = results.slice(10);
    expect(mean(settled)).toBeLessThanOrEqual(1.6);
    expect(p95(settled.map((r) => r.lagMs))).toBeLessThanOrEqual(1000);
  });
});

describe('PollScheduler: what is learned', () => {
  /**
   * The first polls of a 60-character generation done in 300 ms, on a scheduler that first
   * tracked `before` (if any) to its end.
   */
  async function firstPollsAfter(before?: { learn: boolean; finishAt: number }) {
    const clock = new FakeClock(0);
    const api = fakeApi(clock);
    const estimator = new GenerationEstimator({ prior: API_PRIOR });
    const polls = scheduler(clock, api.poll, estimator);
    if (before !== undefined) {
      api.finishAt.set('streamed', before.finishAt);
      const streamed = polls.track({
        learn: before.learn,
        generationId: 'streamed',
        model: 'base',
        textLength: 60,
        submittedAt: 0,
      });
      while (polls.size > 0) await clock.advance(100);
      await streamed;
    }
    const learned = estimator.snapshot();
    const submittedAt = clock.now();
    api.finishAt.set('remade', submittedAt + 300);
    const remade = polls.track({
      learn: true,
      generationId: 'remade',
      model: 'base',
      textLength: 60,
      submittedAt,
    });
    while (polls.size > 0) await clock.advance(50);
    await remade;
    const firstPoll = api.polls.find((p) => p.id === 'remade')?.at ?? Number.NaN;
    return { learned, firstPollAfterMs: firstPoll - submittedAt };
  }

  test('a stream polled to its end (timed from its start, at half pace) teaches nothing: the next generation is polled as on a fresh key', async () => {
    const fresh = await firstPollsAfter();
    // 60 characters (about 4 s of speech) streamed at half pace: done 8 s after the stream began.
    const afterStream = await firstPollsAfter({ learn: false, finishAt: 8000 });
    expect(afterStream.learned).toEqual({});
    expect(afterStream.firstPollAfterMs).toBe(fresh.firstPollAfterMs);
    // The prior's probe, a quarter of its 1.7 s: learned, the stream had put it at 8 s.
    expect(fresh.firstPollAfterMs).toBe(425);
  });

  test('a generation timed from its own submit is learned', async () => {
    const afterSubmit = await firstPollsAfter({ learn: true, finishAt: 8000 });
    expect(afterSubmit.learned.base?.samples).toHaveLength(1);
    expect(afterSubmit.firstPollAfterMs).toBeGreaterThan(5000);
  });
});

describe('PollScheduler notice lag', () => {
  test('reports, once per completed generation, the time since the estimated completion', async () => {
    const clock = new FakeClock(0);
    const api = fakeApi(clock);
    api.finishAt.set('lag_a', 4500);
    api.special.set('lag_fail', { status: 'Failed', error: 'boom' });
    const lags: number[] = [];
    const polls = new PollScheduler({
      poll: api.poll,
      clock,
      estimator: new GenerationEstimator(),
      deadlineMs: 300_000,
      minIntervalMs: 1000,
      maxIntervalMs: 2000,
      onNoticed: (lagMs) => lags.push(lagMs),
    });
    const done = polls.track({
      learn: true,
      generationId: 'lag_a',
      model: 'base',
      textLength: 40,
      submittedAt: 0,
    });
    const failed = polls.track({
      learn: true,
      generationId: 'lag_fail',
      model: 'base',
      textLength: 40,
      submittedAt: 0,
    });
    failed.catch(() => undefined);
    await clock.advance(10_000);
    await done;
    await expect(failed).rejects.toThrow('boom');
    const completed = api.polls.filter((p) => p.id === 'lag_a');
    const [before, first] = completed.slice(-2).map((p) => p.at);
    expect(lags).toEqual([((first ?? 0) - (before ?? 0)) / 2]);
    expect(lags[0]).toBeGreaterThan(0);
    expect(lags[0]).toBeLessThanOrEqual(1000);
  });
});

describe('PollScheduler on an API that slows steadily', () => {
  test('a first poll capped short of an estimate the learned slowing explains: the next at the estimate, not every 400 ms', async () => {
    const estimator = new GenerationEstimator({ prior: API_PRIOR });
    const prior = (n: number) => 800 + 15 * n;
    const lengths = [140, 41, 201, 33, 85, 160, 81, 220, 180, 77];
    // 20 generations slowing from 1x to 2.3x the prior, each bracketed within 200 ms.
    for (let i = 0; i < 20; i++) {
      const n = lengths[i % lengths.length] ?? 100;
      const ms = prior(n) * (1 + (2 * i) / 29);
      estimator.observe('base', n, { afterMs: ms - 100, byMs: ms + 100 });
    }
    expect(estimator.trend('base')).toBeGreaterThan(0);
    // The next, 300 characters at 2.38x: about 12.6 s, past the first poll's 10 s cap.
    const durationMs = prior(300) * (1 + (2 * 20) / 29);
    expect(estimator.estimate('base', 300)).toBeGreaterThan(10_000);
    const [result] = await oneAtATime(
      1,
      () => 300,
      () => durationMs,
      estimator,
    );
    // Before: polled at the cap (lifted a little by the last two brackets), then every 400 ms
    // to the finish: 4 polls. Now 2: the capped one, then the estimate less its spread.
    expect(result?.polls).toBeLessThanOrEqual(2);
    expect(result?.lagMs).toBeLessThanOrEqual(480);
  });
});

describe('PollScheduler after a capped first poll on a steep slowing', () => {
  /** An estimator that learned a steep slowing: 300 characters expected in about 2 minutes. */
  function steep(): GenerationEstimator {
    const estimator = new GenerationEstimator({ prior: API_PRIOR });
    const lengths = [140, 41, 201, 33, 85, 160, 81, 220, 180, 77];
    for (let i = 0; i < 20; i++) {
      const n = lengths[i % lengths.length] ?? 100;
      const ms = (800 + 15 * n) * 4 * Math.exp(0.08 * i);
      estimator.observe('base', n, { afterMs: ms - 100, byMs: ms + 100 });
    }
    return estimator;
  }

  test('the next poll comes within the cap, and by the deadline (a task that never finishes times out then)', async () => {
    const estimator = steep();
    expect(estimator.trend('base')).toBeGreaterThan(0);
    expect(estimator.estimate('base', 300)).toBeGreaterThan(100_000);
    const clock = new FakeClock(0);
    const api = fakeApi(clock);
    // Fast again: done at 35 s; and one that never finishes, against a 60 s deadline.
    api.finishAt.set('fast', 35_000);
    const polls = scheduler(clock, api.poll, estimator, 60_000);
    const fast = polls.track({
      learn: true,
      generationId: 'fast',
      model: 'base',
      textLength: 300,
      submittedAt: 0,
    });
    const stuck = polls.track({
      learn: true,
      generationId: 'stuck',
      model: 'base',
      textLength: 300,
      submittedAt: 0,
    });
    const outcome = stuck.then(
      () => 'resolved',
      (error: unknown) => (error instanceof TtsError ? error.kind : 'other'),
    );
    let timedOutAt: number | undefined;
    void outcome.then(() => {
      timedOutAt = clock.now();
    });
    while (polls.size > 0) await clock.advance(100);
    await fast;
    expect(await outcome).toBe('generation_timeout');
    // Before: after the first poll (lifted to 30 s), the next at the estimate less its spread,
    // about 2 minutes: 'fast' noticed 1.5 minutes late, 'stuck' timed out at about 2 minutes.
    const fastPolls = api.polls.filter((p) => p.id === 'fast').map((p) => p.at);
    const gaps = fastPolls.slice(1).map((at, i) => at - (fastPolls[i] ?? 0));
    expect(Math.max(...gaps)).toBeLessThanOrEqual(10_000);
    expect(fastPolls.at(-1)).toBeLessThanOrEqual(35_000 + 10_000);
    expect(timedOutAt).toBeLessThanOrEqual(60_000 + 2000 + 100);
  });
});

describe('recheckAfter', () => {
  test.each([
    // elapsed, planned, expected wait: near the plan, the lag budget (400)
    [1100, 1000, 400],
    [2100, 2000, 400],
    [4100, 4000, 400],
    [8000, 6000, 400],
    // past twice the plan, a quarter of the overrun, up to the longest interval (2000)
    [4000, 1000, 500],
    [6000, 1000, 1000],
    [20_000, 1000, 2000],
  ])(
    'a task running %i ms after submission, planned at %i ms: looks again after %i ms',
    (elapsed, planned, wait) => {
      expect(recheckAfter(elapsed, planned, 400, 2000)).toBe(wait);
    },
  );

  test.each([
    // elapsed, planned, spread (ms), expected wait
    // the first re-check after the plan stays at the lag budget, whatever the spread
    [1000, 1000, 900, 400],
    [1150, 1000, 900, 400],
    // from one budget past the plan, every spread when it is wider than the budget
    [1400, 1000, 900, 900],
    [1400, 1000, 300, 400],
    [1400, 1000, 5000, 2000],
    // past twice the plan, the larger of the spread and a quarter of the overrun
    [4000, 1000, 900, 900],
    [8000, 1000, 900, 1500],
    // a spread that is not a number counts as none (before: NaN, a poll at once, again and again)
    [1400, 1000, Number.NaN, 400],
    [1400, 1000, Number.POSITIVE_INFINITY, 2000],
  ])(
    'a scattered API: running %i ms after submission, planned at %i ms, spread %i ms: looks again after %i ms',
    (elapsed, planned, spread, wait) => {
      expect(recheckAfter(elapsed, planned, 400, 2000, spread)).toBe(wait);
    },
  );
});
