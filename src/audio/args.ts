/**
 * Evens out loudness between voices with little lookahead (100 ms frames, 3 of them): clips
 * from -35 to -15 LUFS come out within about 1.3 LU of -18. Single-pass `loudnorm` is closer to
 * a target but looks 3 s ahead, so at download speed the first sound waited seconds, and it
 * costs about twice the CPU.
 */
export const NORMALIZE_FILTER = 'dynaudnorm=f=100:g=3:p=0.84:r=0.25:m=30';

/**
 * libopus complexity for speech at 64 kb/s: `npm run bench -- --only opus` (log-spectral distance
 * to espeak-ng speech) measured 3.90 dB at 3 against 3.92 dB at libopus's default 10, with
 * 3.2 ms of encoder CPU per second of speech against 5.6 ms; 0 costs 5.66 dB.
 */
export const SPEECH_COMPLEXITY = 3;

/**
 * ffmpeg's demuxer for each audio format a download can be sniffed as (by file
 * extension, as `file-type` names them). Only these may be forced with `-f`: none
 * of them opens other files or addresses, as playlist demuxers (hls, concat) would.
 */
const DEMUXERS: Readonly<Record<string, string>> = {
  wav: 'wav',
  mp3: 'mp3',
  ogg: 'ogg',
  oga: 'ogg',
  opus: 'ogg',
  flac: 'flac',
  m4a: 'mov',
  mp4: 'mov',
  aac: 'aac',
  webm: 'matroska',
  mka: 'matroska',
  aif: 'aiff',
  aiff: 'aiff',
};
const ALLOWED_DEMUXERS = new Set(Object.values(DEMUXERS));

/** The ffmpeg demuxer for audio sniffed as `extension`, or undefined when we do not play that format. */
export function demuxerFor(extension: string): string | undefined {
  return Object.hasOwn(DEMUXERS, extension) ? DEMUXERS[extension] : undefined;
}

/** Raw PCM with no container (a live stream's chunks): what ffmpeg must be told, since it cannot probe it. */
export interface RawPcmInput {
  readonly format: 'f32le' | 's16le';
  readonly sampleRate: number;
  readonly channels: number;
}

/** Choices for one transcode; everything but `normalize` has a sensible default. */
export interface TranscodeArgsOptions {
  /** Even out loudness between voices ({@link NORMALIZE_FILTER}). */
  normalize: boolean;
  /** Opus bitrate; default 64 (Discord's default voice bitrate). */
  bitrateKbps?: number | undefined;
  /**
   * libopus complexity, 0–10; default {@link SPEECH_COMPLEXITY}. libopus's own default (10)
   * spends twice the CPU for no measurable gain on speech.
   */
  complexity?: number | undefined;
  /** Stop after this much audio; omitted means the whole input. */
  maxDurationMs?: number | undefined;
  /**
   * Bytes ffmpeg may read to learn stream parameters (format detection is not limited by it);
   * default 16 KiB so playback starts soon. Note WAV input always needs ~64 KiB first: ffmpeg's
   * WAV demuxer reads that far ahead to detect S/PDIF-wrapped audio.
   */
  probeSizeBytes?: number | undefined;
  /** Microseconds of input ffmpeg may analyse for stream parameters; default 100 000. */
  analyzeDurationUs?: number | undefined;
  /**
   * The input demuxer (e.g. "mp3", see {@link demuxerFor}) when the caller sniffed the
   * format, so ffmpeg does not guess; one that could open other inputs is refused.
   */
  inputFormat?: string | undefined;
  /** Raw PCM in this format on stdin (`-f f32le -ar 24000 -ac 1`); excludes `inputFormat`. */
  rawInput?: RawPcmInput | undefined;
  /** Ogg page length in microseconds: one 20 ms Opus frame per page by default, so the first reaches the player at once. */
  pageDurationUs?: number | undefined;
}

/**
 * Builds ffmpeg arguments that read audio on stdin and write Ogg/Opus 48 kHz stereo to
 * stdout. Only the pipe protocol is allowed, so nothing in the input can make ffmpeg
 * open a file or an address; the demuxer is the sniffed `inputFormat` (`-f`) or, for an
 * ffmpeg started before the bytes are known, one of the plain audio demuxers.
 */
export function buildTranscodeArgs(options: TranscodeArgsOptions): string[] {
  const bitrate = positive(options.bitrateKbps ?? 64, 'bitrateKbps');
  const probeSize = positive(options.probeSizeBytes ?? 16_384, 'probeSizeBytes');
  const analyzeDuration = positive(options.analyzeDurationUs ?? 100_000, 'analyzeDurationUs');
  const pageDuration = positive(options.pageDurationUs ?? 20_000, 'pageDurationUs');
  const args = ['-hide_banner', '-nostdin', '-loglevel', 'error'];
  args.push('-probesize', String(Math.max(32, Math.round(probeSize))));
  args.push('-analyzeduration', String(Math.round(analyzeDuration)));
  args.push('-protocol_whitelist', 'pipe');
  const raw = options.rawInput;
  if (raw !== undefined) {
    if (options.inputFormat !== undefined) {
      throw new RangeError('rawInput and inputFormat cannot both be given');
    }
    const rate = positive(raw.sampleRate, 'rawInput.sampleRate');
    const channels = positive(raw.channels, 'rawInput.channels');
    args.push(
      '-f',
      raw.format,
      '-ar',
      String(Math.round(rate)),
      '-ac',
      String(Math.round(channels)),
    );
  } else if (options.inputFormat === undefined) {
    // Started before the bytes are known (ahead of playback): it may probe, among these only.
    args.push('-format_whitelist', [...ALLOWED_DEMUXERS].join(','));
  } else {
    if (!ALLOWED_DEMUXERS.has(options.inputFormat)) {
      throw new RangeError(`inputFormat must be a known audio demuxer, got ${options.inputFormat}`);
    }
    args.push('-f', options.inputFormat);
  }
  args.push('-i', 'pipe:0');
  // Audio only: cover art in MP3/FLAC tags would otherwise become a video stream.
  args.push('-map', '0:a:0', '-vn', '-sn', '-dn');
  if (options.normalize) args.push('-af', NORMALIZE_FILTER);
  args.push('-ac', '2', '-ar', '48000', '-c:a', 'libopus', '-b:a', `${Math.round(bitrate)}k`);
  const complexity = options.complexity ?? SPEECH_COMPLEXITY;
  if (!Number.isInteger(complexity) || complexity < 0 || complexity > 10) {
    throw new RangeError(`complexity must be an integer from 0 to 10, got ${complexity}`);
  }
  args.push('-compression_level', String(complexity));
  if (options.maxDurationMs !== undefined) {
    args.push('-t', (positive(options.maxDurationMs, 'maxDurationMs') / 1000).toFixed(3));
  }
  args.push('-page_duration', String(Math.round(pageDuration)), '-flush_packets', '1');
  args.push('-f', 'ogg', 'pipe:1');
  return args;
}

function positive(value: number, name: string): number {
  if (!Number.isFinite(value) || value <= 0) {
    throw new RangeError(`${name} must be a positive number, got ${value}`);
  }
  return value;
}
