export { type Audio, checkMediaUrl, type MediaPolicy, sniffAudio } from './audio.ts';
export {
  type BudgetJournal,
  type BudgetStore,
  horizonOf,
  type LimitUsage,
  MemoryBudgetStore,
  type Take,
  usageOf,
  windowWithMargin,
} from './budget.ts';
export { FallbackBudgetStore } from './budget-fallback.ts';
export { TtsClient } from './client.ts';
export type { TtsClientOptions } from './client-options.ts';
export { openSniffed, TtsClients } from './clients.ts';
export { type Clock, systemClock } from './clock.ts';
export {
  billedChars,
  billedTokens,
  costAt,
  type GenerationCost,
  microsOf,
  PriceBook,
  parseBill,
} from './cost.ts';
export { createTtsClients, type TtsClientsConfig, type TtsStores } from './create.ts';
export { type ApiChoice, productionClientOptions } from './defaults.ts';
export { describeDetail, isTransient, TtsError, type TtsErrorKind } from './errors.ts';
export {
  API_PRIOR,
  type EstimatorPrior,
  type LearnedModel,
  type LearnedState,
  priorFor,
} from './estimator.ts';
export { safeFileStem } from './file-name.ts';
export { formatWindow } from './gate.ts';
export { isSendableKey, keyId, maskKey } from './key.ts';
export type { LearnedTimesStore } from './learned-times.ts';
export {
  DEFAULT_LIMITS,
  type Limit,
  type Limits,
  parseLimits,
  shareOfLimits,
  V3_DEFAULT_LIMITS,
} from './limits.ts';
export type { VoiceSpeech } from './live.ts';
export { countingFetch, endpointOf, type TtsEndpoint, type TtsMetrics } from './metrics.ts';
export type { LiveStream, PcmFormat, SpeechControls, TtsProtocol } from './protocol.ts';
export { V2_CONTROLS } from './protocol.ts';
export { type GenerateOptions, untilAborted } from './shared-generation.ts';
export {
  AUDIO_LIFETIME_MS,
  type CachedSpeech,
  SpeechCache,
  type SpeechCacheOptions,
  type SpeechCacheStore,
  speechCacheKey,
} from './speech-cache.ts';
export {
  EMOTIONS,
  type Emotion,
  type FinishedGeneration,
  type GenerationProgress,
  MODELS,
  type Model,
  type SpeechRequest,
  type Voice,
} from './types.ts';
export { type JobSlots, MemoryJobSlots, STREAM_PCM } from './v3/index.ts';
