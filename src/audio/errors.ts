/** Why a transcode ended badly; `input` means the source stream itself failed. */
export type FfmpegFailureReason = 'failed' | 'stalled' | 'aborted' | 'spawn' | 'input';

/** Details attached to an {@link FfmpegError}. */
export interface FfmpegErrorDetails {
  /** Exit code, or null when killed by a signal or never started. */
  exitCode?: number | null;
  /** Signal that ended the process, if any. */
  exitSignal?: NodeJS.Signals | null;
  /** Last lines ffmpeg wrote to stderr (with `-loglevel error`, the error itself). */
  stderr?: readonly string[];
  cause?: unknown;
}

/** A transcode that did not finish cleanly; `reason` says which way it went wrong. */
export class FfmpegError extends Error {
  override readonly name = 'FfmpegError';
  readonly reason: FfmpegFailureReason;
  readonly exitCode: number | null;
  readonly exitSignal: NodeJS.Signals | null;
  readonly stderr: readonly string[];

  constructor(reason: FfmpegFailureReason, message: string, details: FfmpegErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.reason = reason;
    this.exitCode = details.exitCode ?? null;
    this.exitSignal = details.exitSignal ?? null;
    this.stderr = details.stderr ?? [];
  }
}

/** Where an ffmpeg candidate came from, in the order they are tried. */
export type FfmpegSource = 'FFMPEG_PATH' | 'ffmpeg-static' | 'PATH';

/** One candidate that could not be used, and why. */
export interface FfmpegCandidateFailure {
  readonly source: FfmpegSource;
  /** The path tried, or null when the source offered none (e.g. package not installed). */
  readonly path: string | null;
  readonly error: string;
}

/** No usable ffmpeg binary was found; `candidates` lists each one tried and why it failed. */
export class FfmpegNotFoundError extends Error {
  override readonly name = 'FfmpegNotFoundError';
  readonly candidates: readonly FfmpegCandidateFailure[];

  constructor(candidates: readonly FfmpegCandidateFailure[]) {
    const lines = candidates.map((c) => `  - ${c.source} (${c.path ?? 'no path'}): ${c.error}`);
    super(
      `No usable ffmpeg found. Install ffmpeg (e.g. apt-get install ffmpeg) or set FFMPEG_PATH.\nTried:\n${lines.join('\n')}`,
    );
    this.candidates = candidates;
  }
}
