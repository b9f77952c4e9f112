import type { Logger } from '../log/index.ts';
import type { BudgetStore } from './budget.ts';
import { TtsClients } from './clients.ts';
import type { Clock } from './clock.ts';
import { type ApiChoice, productionClientOptions } from './defaults.ts';
import type { EstimatorPrior } from './estimator.ts';
import type { LearnedTimesStore } from './learned-times.ts';
import type { TtsMetrics } from './metrics.ts';
import { SpeechCache, type SpeechCacheStore } from './speech-cache.ts';
import type { JobSlots } from './v3/index.ts';

/** What the bot's TTS clients are built from (the bot's `Config` has these fields). */
export interface TtsClientsConfig {
  readonly ttsApiUrl: string;
  readonly ttsMediaOrigins: readonly string[];
  readonly pollDeadlineMs: number;
  /** How long identical speech is reused (0: never). */
  readonly cacheTtlMs: number;
  /** `TTS_GENERATION_TIME`: what a key's first polls expect before it has learned its own. */
  readonly generationPrior: EstimatorPrior;
  /** `TTS_API_VERSION`, `TTS_STREAMING` and v3's concurrent-job cap. */
  readonly ttsApi: ApiChoice;
}

/** Where the TTS clients keep what outlives a request: rate budgets, cached speech, learned times. */
export interface TtsStores {
  readonly budgets: BudgetStore;
  readonly speechCache: SpeechCacheStore;
  readonly learnedTimes: LearnedTimesStore;
  /** v3's concurrent jobs per key, shared across shards; in this process when absent. */
  readonly jobs?: JobSlots | undefined;
}

/** The bot's TTS clients, one per key, on the real API's settings and answering from the speech cache. */
export function createTtsClients(deps: {
  readonly config: TtsClientsConfig;
  readonly store: TtsStores;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics?: TtsMetrics | undefined;
  /** The first retry wait without `Retry-After` (doubling after); the real 1 s when absent. */
  readonly retryBaseMs?: number | undefined;
}): TtsClients {
  const { config, store, clock, logger } = deps;
  const cache = new SpeechCache({
    store: store.speechCache,
    ttlMs: config.cacheTtlMs,
    clock,
    onError: (error) => logger.warn({ err: error }, 'speech cache unavailable'),
  });
  return new TtsClients({
    ...productionClientOptions({
      baseUrl: config.ttsApiUrl,
      mediaOrigins: config.ttsMediaOrigins,
      pollDeadlineMs: config.pollDeadlineMs,
      budgets: store.budgets,
      clock,
      onBackgroundError: (error) => logger.warn({ err: error }, 'TTS background request failed'),
      metrics: deps.metrics,
      api: config.ttsApi,
      jobs: store.jobs,
      retryBaseMs: deps.retryBaseMs,
    }),
    cache,
    learning: { store: store.learnedTimes, prior: config.generationPrior },
  });
}
