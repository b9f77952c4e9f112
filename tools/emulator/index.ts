/** Local TTS API emulator: what tests and `npm run emulator` may use. */

export type { Emulator, EmulatorV3, GenerationSnapshot, V3Snapshot } from './emulator.ts';
export { startEmulator } from './emulator.ts';
export type { ApiEndpoint, EndpointName, Fault, StreamFault } from './faults.ts';
export { SERVER_ERROR_DETAIL } from './faults.ts';
export type { ApiVersion, HeardText } from './heard.ts';
export { downloaded, heardGenerations, heardText, v3Generations } from './heard.ts';
export type { Limit, LimitGroup } from './limits.ts';
export { LIMITS, RateLimiter } from './limits.ts';
export type {
  AudioFormat,
  EmulatorOptions,
  EmulatorUser,
  SynthMode,
  UrlField,
} from './options.ts';
export {
  DEFAULT_CREDITS,
  DEFAULT_USERS,
  defaultGenerationMs,
  USER_ONE,
  USER_POOR,
  USER_TWO,
} from './options.ts';
export type { EndpointCount, RequestLogEntry } from './stats.ts';
export type { GenerationStatus } from './store.ts';
export { previewText } from './store.ts';
export * from './v3/index.ts';
export { EMOTIONS, MAX_TEXT, MIN_TEXT } from './validate.ts';
export type { Model, VoiceRecord } from './voices.ts';
export { PRESET_VOICES } from './voices.ts';
export { toneWav, wavDurationMs } from './wav.ts';
