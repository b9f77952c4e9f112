import type { GenerationCost } from './cost.ts';
import type { Model } from './types.ts';

/** Endpoints as counted in metrics: the four API calls, v3's stream, and audio downloads (`media`). */
export type TtsEndpoint = 'tts' | 'status' | 'voices' | 'health' | 'stream' | 'media';

/** What the TTS client reports for metrics; the bot passes a Prometheus-backed one. */
export interface TtsMetrics {
  /** One request answered with HTTP `status`, or 0 when no answer came (network, timeout, abort). */
  apiRequest(endpoint: TtsEndpoint, status: number): void;
  /** Time from a generation's completion to our first `Completed` poll, estimated from the poll schedule. */
  noticeLag(seconds: number): void;
  /** Speech served from the audio cache: nothing was submitted. */
  cacheHit(): void;
  /** v3 billed a generation of `model` (a stream at the price last seen); v2 bills no money. */
  billed?(model: Model, cost: GenerationCost): void;
}

/** Which API endpoint a request address is, relative to the API's base address. */
export function endpointOf(url: string, baseUrl: string): TtsEndpoint | undefined {
  const base = new URL(baseUrl).pathname.replace(/\/+$/, '');
  const path = new URL(url).pathname;
  if (!path.startsWith(base)) return undefined;
  const rest = path.slice(base.length).replace(/^\/+|\/+$/g, '');
  if (rest === '') return 'health';
  // v3 polls on its submit path: `GET /v3/tts?generation_id=…`.
  if (rest === 'tts' && new URL(url).searchParams.has('generation_id')) return 'status';
  if (rest === 'tts' || rest === 'status' || rest === 'voices') return rest;
  return undefined;
}

/**
 * Wraps `fetcher` so every request it makes is counted under the endpoint
 * `classify` gives its address (requests it gives none for are not counted).
 */
export function countingFetch(
  fetcher: typeof fetch,
  classify: (url: string) => TtsEndpoint | undefined,
  metrics: TtsMetrics,
): typeof fetch {
  return async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const endpoint = classify(url);
    try {
      const response = await fetcher(input, init);
      if (endpoint !== undefined) metrics.apiRequest(endpoint, response.status);
      return response;
    } catch (error) {
      if (endpoint !== undefined) metrics.apiRequest(endpoint, 0);
      throw error;
    }
  };
}
