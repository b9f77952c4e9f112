import type { BudgetStore } from './budget.ts';
import type { TtsClientOptions } from './client-options.ts';
import type { Clock } from './clock.ts';
import type { TtsMetrics } from './metrics.ts';
import { type JobSlots, MemoryJobSlots, v3Protocol } from './v3/index.ts';

/** Which API version a client speaks, as the configuration chose it. */
export interface ApiChoice {
  readonly version: 'v2' | 'v3';
  readonly streaming: boolean;
  readonly concurrentJobs: number;
}

/**
 * The client settings for the real API, shared by the bot and the admin
 * CLI, for v2 or v3: the spec's 1–2 s poll cadence, 15 s per request, JSON answers up to 1 MiB,
 * 25 MiB of audio at most, downloaded within 2 minutes of network time.
 */
export function productionClientOptions(input: {
  readonly baseUrl: string;
  readonly mediaOrigins: readonly string[];
  readonly pollDeadlineMs: number;
  readonly budgets: BudgetStore;
  readonly clock: Clock;
  readonly onBackgroundError: (error: unknown) => void;
  readonly metrics?: TtsMetrics | undefined;
  /** v2 when absent. */
  readonly api?: ApiChoice | undefined;
  /** Where v3's concurrent-job slots are held; this process's memory when absent. */
  readonly jobs?: JobSlots | undefined;
  /** The first retry wait without `Retry-After` (doubling after); the real 1 s when absent. Tests of faults shorten it. */
  readonly retryBaseMs?: number | undefined;
}): TtsClientOptions {
  const maxBudgetWaitMs = 5 * 60_000;
  const { api } = input;
  return {
    baseUrl: input.baseUrl,
    media: {
      origins: input.mediaOrigins,
      maxBytes: 25 * 1024 * 1024,
      timeoutMs: 60_000,
      deadlineMs: 120_000,
    },
    maxResponseBytes: 1024 * 1024,
    budgets: input.budgets,
    clock: input.clock,
    requestTimeoutMs: 15_000,
    maxRetries: 4,
    retryBaseMs: input.retryBaseMs,
    maxBudgetWaitMs,
    pollDeadlineMs: input.pollDeadlineMs,
    pollIntervalMs: { min: 1000, max: 2000 },
    voicesTtlMs: 10 * 60_000,
    onBackgroundError: input.onBackgroundError,
    metrics: input.metrics,
    onStreamFallback: input.onBackgroundError,
    protocol:
      api?.version === 'v3'
        ? v3Protocol({
            budgets: input.budgets,
            jobs: input.jobs ?? new MemoryJobSlots(),
            concurrentJobs: api.concurrentJobs,
            maxBudgetWaitMs,
            streaming: api.streaming,
            onBackgroundError: input.onBackgroundError,
          })
        : undefined,
  };
}
