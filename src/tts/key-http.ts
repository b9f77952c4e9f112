import type { MediaPolicy } from './audio.ts';
import type { TtsClientOptions } from './client-options.ts';
import { RateGate } from './gate.ts';
import type { HttpContext } from './http.ts';
import { countingFetch, endpointOf } from './metrics.ts';

/**
 * How one key reaches the network: its API calls through the key's rate gate (its budgets) with
 * the client's timeouts and retries, and its media downloads, each fetch counted where metrics are.
 */
export function keyHttp(
  apiKey: string,
  keyId: string,
  options: TtsClientOptions,
): { readonly http: HttpContext; readonly media: MediaPolicy } {
  const fetcher = options.fetch ?? globalThis.fetch;
  const { metrics } = options;
  const apiFetch =
    metrics === undefined
      ? fetcher
      : countingFetch(fetcher, (url) => endpointOf(url, options.baseUrl), metrics);
  const media: MediaPolicy = {
    ...options.media,
    fetch: metrics === undefined ? fetcher : countingFetch(fetcher, () => 'media', metrics),
  };
  const gate = new RateGate({
    store: options.budgets,
    clock: options.clock,
    maxWaitMs: options.maxBudgetWaitMs,
  });
  const http: HttpContext = {
    baseUrl: options.baseUrl,
    apiKey,
    keyId,
    gate,
    clock: options.clock,
    fetch: apiFetch,
    timeoutMs: options.requestTimeoutMs,
    maxResponseBytes: options.maxResponseBytes,
    maxRetries: options.maxRetries,
    retryBaseMs: options.retryBaseMs,
    onBudgetError: options.onBackgroundError,
    metrics,
  };
  return { http, media };
}
