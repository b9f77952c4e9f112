/** The vendor's v3 API behind the client's protocol seam (docs/design/API-V3.md). */
export { TtsApiV3, type V3Options, v3Protocol } from './api.ts';
export { type HeldJob, type JobSlots, JobTracker, MemoryJobSlots, type SlotTake } from './jobs.ts';
export { openStream, STREAM_PCM, type StreamContext, streamUrl } from './stream.ts';
export { kindOfRefusal } from './stream-failure.ts';
export { GuardedBudgets, LearnedWindow, resetTime } from './window.ts';
export {
  ADVANCED_LANGUAGES,
  BASE_LANGUAGE_CODES,
  statusOf,
  V3_AUDIO_FORMAT,
  V3_CONTROLS,
  type V3Model,
  v3Body,
  v3LanguageCode,
  v3Model,
} from './wire.ts';
