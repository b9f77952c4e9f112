import type { BudgetStore } from './budget.ts';
import type { TtsClientOptions } from './client.ts';
import type { Clock } from './clock.ts';
import type { TtsMetrics } from './metrics.ts';

/**
 * The client settings for the real API, shared by the bot and the admin
 * CLI: the spec's 1–2 s poll cadence, 15 s per request, JSON answers up to 1 MiB,
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
}): TtsClientOptions {
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
    maxBudgetWaitMs: 5 * 60_000,
    pollDeadlineMs: input.pollDeadlineMs,
    pollIntervalMs: { min: 1000, max: 2000 },
    voicesTtlMs: 10 * 60_000,
    onBackgroundError: input.onBackgroundError,
    metrics: input.metrics,
  };
}
