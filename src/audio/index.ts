// Audio pipeline: locate ffmpeg, build its arguments, stream any audio into Ogg/Opus.
// Knows ffmpeg; knows nothing of Discord, HTTP or commands.
export type { RawPcmInput, TranscodeArgsOptions } from './args.ts';
export { buildTranscodeArgs, demuxerFor, NORMALIZE_FILTER } from './args.ts';
export type { DecodeOptions } from './decode.ts';
export { buildDecodeArgs, decodeToPcm } from './decode.ts';
export type { EncodedItem, SpeechEncoderOptions } from './encoder.ts';
export { FLUSH_SILENCE_MS, packetSpan, SpeechEncoder } from './encoder.ts';
export type { FfmpegCandidateFailure, FfmpegFailureReason, FfmpegSource } from './errors.ts';
export { FfmpegError, FfmpegNotFoundError } from './errors.ts';
export { oggOpusDurationMs } from './ogg.ts';
export { FfmpegProcesses } from './processes.ts';
export type { FfmpegBinary, ResolveFfmpegOptions, RunVersion } from './resolve.ts';
export { findFfmpeg, parseFfmpegVersion, resolveFfmpeg } from './resolve.ts';
export type {
  Transcode,
  TranscodeLogger,
  TranscodeOptions,
  WaitingTranscode,
} from './transcode.ts';
export { startTranscode, transcodeToOpus } from './transcode.ts';
export type { WavHeader, WavLayout, WavRead } from './wav.ts';
export { parseWavHeader, readWav } from './wav.ts';
