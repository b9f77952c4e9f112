/** The emulator's v3 API: what the emulator's entry point and tests may use. */

export { INVALID_KEY } from './api.ts';
export type { V3Model, V3Voice } from './catalog.ts';
export { V3_SYSTEM_VOICES } from './catalog.ts';
export type { Plan, TakeResult, V3PlanLimits, WindowState } from './limits.ts';
export { V3_LIMITS, WindowLimiter } from './limits.ts';
export { BYTES_PER_SAMPLE, STREAM_RATE, streamSamples, wavToStreamPcm } from './pcm.ts';
export type { V3HistoryStatus, V3Status } from './records.ts';
export { tokensFor } from './records.ts';
export { CLOSE, STREAM_PATH } from './stream.ts';
export { LANGUAGE_CODES, PLAN_REFUSAL, V3_MAX_TEXT } from './validate.ts';
