import type { MediaPolicy } from './audio.ts';
import type { BudgetStore } from './budget.ts';
import type { Clock } from './clock.ts';
import type { EstimatorPrior } from './estimator.ts';
import type { HttpContext } from './http.ts';
import type { LearnedTimesStore } from './learned-times.ts';
import type { TtsMetrics } from './metrics.ts';
import type { TtsProtocol } from './protocol.ts';
import type { SpeechCache } from './speech-cache.ts';

/** Settings shared by the clients of every key. */
export interface TtsClientOptions {
  readonly baseUrl: string;
  readonly media: Omit<MediaPolicy, 'fetch'>;
  readonly budgets: BudgetStore;
  readonly clock: Clock;
  readonly fetch?: typeof fetch;
  readonly requestTimeoutMs: number;
  /** Largest JSON answer the API may send; default 1 MiB. */
  readonly maxResponseBytes?: number | undefined;
  readonly maxRetries: number;
  /** The first wait before a retry without `Retry-After`, doubling after; 1 s when absent (see `HttpContext`). */
  readonly retryBaseMs?: number | undefined;
  /** Longest wait for rate budget before failing with `quota_exhausted`. */
  readonly maxBudgetWaitMs: number;
  readonly pollDeadlineMs: number;
  readonly pollIntervalMs: { readonly min: number; readonly max: number };
  readonly voicesTtlMs: number;
  /** A key's client not asked for this long, with nothing under way, is dropped; default 1 hour. */
  readonly clientIdleMs?: number | undefined;
  /** Failures in the background (voice refreshes, transient poll errors, budget updates); never contains the key. */
  readonly onBackgroundError: (error: unknown) => void;
  /** Reuses the audio of identical requests; none when absent. */
  readonly cache?: SpeechCache | undefined;
  /** Where requests and notice lags are counted; nowhere when absent. */
  readonly metrics?: TtsMetrics | undefined;
  /**
   * What each key's poll timing starts from (default: the API's shape, `API_PRIOR`) and
   * where what it learns is kept across starts (in memory only when absent).
   */
  readonly learning?:
    | {
        readonly prior?: EstimatorPrior | undefined;
        readonly store?: LearnedTimesStore | undefined;
      }
    | undefined;
  /** Told of each live stream that failed before its first chunk and fell back to submit-and-poll. */
  readonly onStreamFallback?: ((error: unknown) => void) | undefined;
  /** The wire protocol of each key's client, from its HTTP context; v2's `TtsApi` when absent. */
  readonly protocol?: ((http: HttpContext) => TtsProtocol) | undefined;
}
