import type { Clock } from './clock.ts';
import { isTransient, TtsError } from './errors.ts';
import type { GenerationEstimator } from './estimator.ts';
import { formatWindow } from './gate.ts';
import { AUDIO_LIFETIME_MS } from './speech-cache.ts';
import type { GenerationRecord, PendingGeneration } from './types.ts';

/** Options of a {@link PollScheduler}. */
export interface PollSchedulerOptions {
  /** One GET /status call (already rate limited). */
  readonly poll: (generationId: string) => Promise<GenerationRecord>;
  readonly clock: Clock;
  readonly estimator: GenerationEstimator;
  /**
   * A generation a poll sent this long after submission still finds running is reported as
   * timed out. Only an answer ends it: see {@link PollScheduler}.
   */
  readonly deadlineMs: number;
  /** The spec's cadence: poll each task about every 1 to 2 seconds. */
  readonly minIntervalMs: number;
  readonly maxIntervalMs: number;
  /** Told about failures that do not end a generation (e.g. a transient poll error). */
  readonly onTransientError?: (error: unknown, generationId: string) => void;
  /** Told, for each completed generation, how long after its estimated completion we learned of it. */
  readonly onNoticed?: (lagMs: number) => void;
}

/** The first poll waits at most this many of the longest poll intervals after submission. */
const FIRST_POLL_CAP_INTERVALS = 5;
/**
 * However slow the latest generations were, a first poll waits at most this many times that cap:
 * the lift rests on two generations, and an API that is fast again is noticed by the next poll.
 */
const FIRST_POLL_LIFT_FACTOR = 3;
/** Earliest first poll (and quickest re-check) a learned estimate may ask for, in ms. */
const QUICK_POLL_FLOOR_MS = 250;
/**
 * The notice lag a re-check aims within, as a share of the spec's shortest interval: a client
 * polling at that interval notices a task anywhere from 0 to one interval after it finished.
 */
export const LAG_BUDGET_SHARE = 0.4;
/** The first poll's learned margin stays within this share of the lag budget. */
const MARGIN_SHARE = 0.75;
/** Past this many times its planned first poll, a task is off its estimate: re-checks widen. */
const TAIL_FACTOR = 2;
/** Beyond the tail, a re-check waits this share of the time the task has overrun its plan. */
const TAIL_STEP_SHARE = 0.25;

/**
 * How long after a poll that found a timed task running to look again. Near its plan the task
 * is likely moments from done, so re-checks come every lag budget (a notice within it; the spec's
 * 1–2 s cadence would lose up to 2 s). Far past its plan (an API slower than learned, a load
 * spike), the estimate says little and each re-check waits a share of the overrun, so a task
 * several times slower costs a few polls, not one per budget; never more than the longest interval.
 * On an API whose times scatter (`spreadMs`: the estimator's spread of log times, times the
 * estimate or the time elapsed, whichever is longer: a scatter in log time widens in ms as the
 * task runs on), a task not done one lag budget after its plan is somewhere in the scatter, not
 * moments away: from then on, re-checks come every spread (a steady API, spread 0, keeps the
 * lag budget).
 */
export function recheckAfter(
  elapsedMs: number,
  plannedMs: number,
  lagBudgetMs: number,
  maxIntervalMs: number,
  spreadMs = 0,
): number {
  // The first re-check (half a budget past the plan, or less) stays at the lag budget.
  const scattered = elapsedMs - plannedMs >= lagBudgetMs / 2;
  // A spread that is not a number (nothing the estimator gives now) counts as none: a NaN wait
  // would poll at once, again and again.
  const near = scattered && !Number.isNaN(spreadMs) ? Math.max(lagBudgetMs, spreadMs) : lagBudgetMs;
  const overrun = elapsedMs - TAIL_FACTOR * plannedMs;
  const step = overrun > 0 ? Math.max(near, TAIL_STEP_SHARE * overrun) : near;
  return Math.min(maxIntervalMs, Math.max(QUICK_POLL_FLOOR_MS, step));
}

interface Entry {
  readonly generation: PendingGeneration;
  readonly signal: AbortSignal | undefined;
  readonly resolve: (audioUrl: string) => void;
  readonly reject: (error: unknown) => void;
  nextPollAt: number;
  /**
   * What the next poll is: a probe before the estimate, the first poll timed from the estimate
   * (its outcome teaches the estimator's margin), or one of the cadence.
   */
  aim: 'probe' | 'first' | 'cadence';
  /** When the estimate expects the task done, plus the margin: where a missed probe looks next. */
  readonly plannedAt: number;
  /** The same before the first poll's cap (later than `plannedAt` when the cap cut it short). */
  readonly expectedAt: number;
  /** Whether polls are timed from an estimate (else the spec's cadence: nothing is known). */
  readonly timed: boolean;
  /** When the last poll that saw the task running was sent. */
  lastGeneratingAt: number | undefined;
  failures: number;
}

/**
 * Polls every in-flight generation of one API key, one request at a time,
 * earliest-due first, so that all of them share the key's status budget.
 *
 * The deadline ends a generation only on an answer: a poll sent after it passed that finds the
 * task still running. A poll that failed (network, server) or is still waiting for budget says
 * nothing about the task, and a restart or outage that outlasted the deadline must not end a
 * task whose audio may be ready and paid for; so a generation resumed late is always polled.
 * Only generations tracked with `learn` teach the estimator (see {@link PendingGeneration}).
 */
export class PollScheduler {
  readonly #options: PollSchedulerOptions;
  readonly #entries = new Set<Entry>();
  #running = false;
  #wake: AbortController | undefined;

  constructor(options: PollSchedulerOptions) {
    this.#options = options;
  }

  /** Generations currently being polled. */
  get size(): number {
    return this.#entries.size;
  }

  /** Resolves with the audio address once the generation completes; rejects with a TtsError or the abort reason. */
  track(generation: PendingGeneration, signal?: AbortSignal): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const { estimator } = this.#options;
      const { model, textLength, submittedAt } = generation;
      // The margin learned from first polls may say "later", but never by more than
      // MARGIN_SHARE of the lag budget past the estimate: one done a little before it would be
      // noticed late.
      const planned = Math.min(
        estimator.firstPollAfter(model, textLength),
        estimator.estimate(model, textLength) + MARGIN_SHARE * this.#lagBudgetMs(),
      );
      const probe = planned > 0 ? estimator.probeAfter(model, textLength) : undefined;
      const surelyRuns = estimator.surelyRunsMs(model, textLength, this.#firstPollCapMs());
      const plannedAt = submittedAt + this.#firstWait(planned, surelyRuns);
      const entry: Entry = {
        generation,
        signal,
        resolve,
        reject,
        nextPollAt: probe === undefined ? plannedAt : submittedAt + this.#firstWait(probe),
        aim: planned <= 0 ? 'cadence' : probe === undefined ? 'first' : 'probe',
        plannedAt,
        expectedAt: submittedAt + Math.max(QUICK_POLL_FLOOR_MS, planned),
        timed: planned > 0,
        lastGeneratingAt: undefined,
        failures: 0,
      };
      signal?.addEventListener(
        'abort',
        () => {
          if (this.#entries.delete(entry)) reject(signal.reason);
        },
        { once: true },
      );
      this.#entries.add(entry);
      this.#wake?.abort();
      if (!this.#running) void this.#run();
    });
  }

  #firstPollCapMs(): number {
    return this.#options.maxIntervalMs * FIRST_POLL_CAP_INTERVALS;
  }

  #lagBudgetMs(): number {
    return LAG_BUDGET_SHARE * this.#options.minIntervalMs;
  }

  /**
   * How long after submission to poll first: when the estimator expects the task done (it
   * aims most first polls just after the finish), the spec's shortest interval while nothing
   * is known, and never more than a few intervals, since an estimate fitted to other lengths
   * can be far off; unless the latest generations of the model say that this one surely runs
   * longer (a slow API or model: a capped first poll would be followed by a re-check every lag
   * budget up to the finish), and then at most {@link FIRST_POLL_LIFT_FACTOR} times that cap.
   */
  #firstWait(plannedMs: number, surelyRunsMs = 0): number {
    const { minIntervalMs } = this.#options;
    if (plannedMs <= 0) return minIntervalMs;
    const cap = this.#firstPollCapMs();
    return Math.min(
      Math.max(QUICK_POLL_FLOOR_MS, plannedMs),
      Math.max(cap, Math.min(FIRST_POLL_LIFT_FACTOR * cap, surelyRunsMs)),
    );
  }

  async #run(): Promise<void> {
    this.#running = true;
    try {
      while (this.#entries.size > 0) {
        const entry = this.#due();
        const wait = entry.nextPollAt - this.#options.clock.now();
        if (wait > 0) {
          this.#wake = new AbortController();
          const woken = await this.#options.clock.sleep(wait, this.#wake.signal).then(
            () => false,
            () => true,
          );
          this.#wake = undefined;
          if (woken) continue;
        }
        if (this.#entries.has(entry)) await this.#pollOnce(entry);
      }
    } finally {
      this.#running = false;
    }
  }

  #due(): Entry {
    let due: Entry | undefined;
    for (const entry of this.#entries) {
      if (due === undefined || entry.nextPollAt < due.nextPollAt) due = entry;
    }
    if (due === undefined) throw new Error('no generation to poll');
    return due;
  }

  async #pollOnce(entry: Entry): Promise<void> {
    const { clock } = this.#options;
    const { generationId, submittedAt } = entry.generation;
    if (clock.now() - submittedAt > AUDIO_LIFETIME_MS) {
      // No answer can come any more (ids and audio live 24 h): an outage that long ends it.
      this.#settle(entry, this.#timeout(generationId, AUDIO_LIFETIME_MS));
      return;
    }
    const sentAt = clock.now();
    let record: GenerationRecord;
    try {
      record = await this.#options.poll(generationId);
    } catch (error) {
      if (!isTransient(error)) {
        this.#settle(entry, error);
        return;
      }
      this.#options.onTransientError?.(error, generationId);
      entry.failures++;
      entry.nextPollAt = clock.now() + Math.min(30_000, 1000 * 2 ** entry.failures);
      return;
    }
    this.#advance(entry, record, sentAt);
  }

  #advance(entry: Entry, record: GenerationRecord, sentAt: number): void {
    const { clock, estimator, minIntervalMs, maxIntervalMs, deadlineMs } = this.#options;
    const { generationId, model, textLength, submittedAt } = entry.generation;
    const now = clock.now();
    const { aim } = entry;
    const firstTimed = aim === 'first';
    entry.aim = 'cadence';
    entry.failures = 0;
    // A generation whose clock is not its own submit's is polled as the others, but teaches nothing.
    const { learn } = entry.generation;
    if (learn && firstTimed && (record.status === 'Completed' || record.status === 'Generating')) {
      estimator.firstPollResult(model, record.status === 'Completed');
    }
    if (record.status === 'Completed' && record.audioUrl !== null) {
      // The task finished after the last poll that saw it running was sent, and before now.
      const afterMs =
        entry.lastGeneratingAt === undefined ? 0 : entry.lastGeneratingAt - submittedAt;
      const byMs = now - submittedAt;
      if (learn) estimator.observe(model, textLength, { afterMs, byMs });
      // We learned of the completion about half that interval after it happened.
      this.#options.onNoticed?.((byMs - afterMs) / 2);
      this.#settle(entry, record.audioUrl);
    } else if (record.status === 'Completed') {
      this.#settle(
        entry,
        new TtsError(
          'malformed_response',
          `generation ${generationId} completed without an audio address`,
          { generationId },
        ),
      );
    } else if (record.status === 'Generating' && sentAt - submittedAt > deadlineMs) {
      this.#settle(entry, this.#timeout(generationId, deadlineMs));
    } else if (record.status === 'Generating') {
      entry.lastGeneratingAt = sentAt;
      const expected = estimator.estimate(model, textLength);
      if (aim === 'probe') {
        // The estimate is not too slow after all: poll when it expects the task done, as usual.
        entry.aim = 'first';
        entry.nextPollAt = Math.max(now + QUICK_POLL_FLOOR_MS, entry.plannedAt);
      } else if (firstTimed && entry.expectedAt > entry.plannedAt && estimator.trend(model) > 0) {
        // The cap cut the first poll short of an estimate that a learned slowing explains (the
        // cap's premise, an estimate fitted to other lengths, does not hold), and the task runs
        // past the cap as the estimate said: look next when the estimate expects it done, less
        // the learned spread (an estimate past the cap is an extrapolation: it errs both ways).
        // Never further than the first poll's cap from this poll, nor past the deadline: an
        // estimate extrapolated by a steep trend said 2 minutes (the deadline's), and a task
        // done at 35 s was noticed at 105 s, one never done timed out 45 s past a 60 s deadline.
        entry.nextPollAt = Math.max(
          now + QUICK_POLL_FLOOR_MS,
          Math.min(
            entry.expectedAt - estimator.spread(model) * expected,
            sentAt + this.#firstPollCapMs(),
            submittedAt + deadlineMs,
          ),
        );
      } else if (entry.timed) {
        // Expected done by now, so it is likely moments away: quick looks, not full intervals.
        entry.nextPollAt =
          now +
          recheckAfter(
            sentAt - submittedAt,
            entry.plannedAt - submittedAt,
            this.#lagBudgetMs(),
            maxIntervalMs,
            estimator.spread(model) * Math.max(expected, sentAt - submittedAt),
          );
      } else {
        const remaining = submittedAt + expected - now;
        entry.nextPollAt = now + Math.min(maxIntervalMs, Math.max(minIntervalMs, remaining));
      }
    } else {
      const reason =
        record.status === 'Failed'
          ? (record.error ?? 'no reason given')
          : `unknown status "${record.status}"`;
      this.#settle(
        entry,
        new TtsError('generation_failed', `generation ${generationId} failed: ${reason}`, {
          generationId,
        }),
      );
    }
  }

  #timeout(generationId: string, afterMs: number): TtsError {
    return new TtsError(
      'generation_timeout',
      `generation ${generationId} was still running after ${formatWindow(afterMs)}`,
      { generationId },
    );
  }

  #settle(entry: Entry, outcome: string | unknown): void {
    if (!this.#entries.delete(entry)) return;
    if (typeof outcome === 'string') entry.resolve(outcome);
    else entry.reject(outcome);
  }
}
