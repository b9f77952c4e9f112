import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';
import { PassThrough, Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { buildTranscodeArgs, type RawPcmInput } from './args.ts';
import type { FfmpegFailureReason } from './errors.ts';
import { FfmpegError } from './errors.ts';
import type { FfmpegProcesses } from './processes.ts';
import { StderrTail } from './stderr.ts';

/** The subset of a pino logger the transcoder uses. */
export interface TranscodeLogger {
  debug(obj: Record<string, unknown>, msg: string): void;
  warn(obj: Record<string, unknown>, msg: string): void;
}

/** How to run one transcode; only `ffmpegPath` is required. */
export interface TranscodeOptions {
  /** From `resolveFfmpeg().path`. */
  ffmpegPath: string;
  /** Even out loudness between voices (`dynaudnorm`, 300 ms of lookahead); default true. */
  normalize?: boolean | undefined;
  bitrateKbps?: number | undefined;
  /** Cut the audio at this length; ffmpeg then exits normally and the input is dropped. */
  maxDurationMs?: number | undefined;
  /** Force the input demuxer (e.g. "mp3") when the format was already sniffed. */
  inputFormat?: string | undefined;
  /** Raw PCM input (a live stream's chunks) in this format instead of a file. */
  rawInput?: RawPcmInput | undefined;
  /** Abort the transcode: ffmpeg is killed and `done` rejects with reason "aborted". */
  signal?: AbortSignal | undefined;
  /** Kill ffmpeg when it writes nothing for this long (not counted while the reader lags); default 15 000. */
  stallTimeoutMs?: number | undefined;
  /**
   * Scheduling niceness of ffmpeg (0 = the bot's own); default {@link ENCODER_NICENESS}. ffmpeg
   * runs ahead of playback, so it can yield: the bot's event loop (every server's packets) and
   * the next ffmpeg being started (the loop waits for its exec) come first.
   */
  niceness?: number | undefined;
  /** Time between SIGTERM and SIGKILL; default 1000. */
  killGraceMs?: number | undefined;
  /** Where the child is registered until reaped (the bot's registry, so shutdown can kill it). */
  processes: FfmpegProcesses;
  logger?: TranscodeLogger | undefined;
}

/**
 * How much lower than the bot ffmpeg runs. With 24 servers speaking, starting an ffmpeg held the
 * event loop 20–350 ms while the new child waited its turn behind the encoders already running
 * (1.4 ms when the machine is idle); every other server's packets waited with it
 * (docs/design/many-voices.md).
 */
export const ENCODER_NICENESS = 10;

/** A running transcode: Ogg/Opus bytes as they are produced, and how it ended. */
export interface Transcode {
  /**
   * Ogg/Opus 48 kHz stereo, for `createAudioResource(output, { inputType: StreamType.OggOpus })`.
   * Destroyed with the error on failure, so it needs an 'error' listener (@discordjs/voice adds one).
   */
  readonly output: Readable;
  /**
   * Resolves once ffmpeg exited with success and was reaped; rejects with an {@link FfmpegError}
   * (output destroyed with the same error) otherwise. Always handle it.
   */
  readonly done: Promise<void>;
  /** Process id, undefined when spawning failed. */
  readonly pid: number | undefined;
}

/** A transcode whose ffmpeg already runs, waiting for its input. */
export interface WaitingTranscode extends Transcode {
  /**
   * Gives ffmpeg its input (once; a second call throws). The input is consumed and destroyed;
   * the stall watch starts now, so a transcode may wait for its input as long as it likes.
   */
  feed(input: Readable | WebReadableStream<Uint8Array>): void;
}

/**
 * Streams any audio (WAV, MP3, Ogg, FLAC…) through ffmpeg into Ogg/Opus, starting output before
 * the input ends. The input is consumed and destroyed; ffmpeg never outlives `done`.
 */
export function transcodeToOpus(
  input: Readable | WebReadableStream<Uint8Array>,
  options: TranscodeOptions,
): Transcode {
  const transcode = startTranscode(options);
  transcode.feed(input);
  return transcode;
}

/**
 * Starts ffmpeg now, before its input exists, so the ~100 ms it takes to load are spent while
 * the speech is still being generated; {@link WaitingTranscode.feed} hands it the audio later.
 * Aborting `signal` (or a spawn failure) ends it like {@link transcodeToOpus}.
 */
export function startTranscode(options: TranscodeOptions): WaitingTranscode {
  const args = buildTranscodeArgs({
    normalize: options.normalize ?? true,
    bitrateKbps: options.bitrateKbps,
    maxDurationMs: options.maxDurationMs,
    inputFormat: options.inputFormat,
    rawInput: options.rawInput,
  });
  let source: Readable | undefined;
  const { signal, logger } = options;
  const stallTimeoutMs = options.stallTimeoutMs ?? 15_000;
  const killGraceMs = options.killGraceMs ?? 1000;
  const output = new PassThrough();
  const stderr = new StderrTail();

  let settled = false;
  let failure: FfmpegError | undefined;
  let stallTimer: NodeJS.Timeout | undefined;
  let killTimer: NodeJS.Timeout | undefined;
  let resolveDone: () => void = () => undefined;
  let rejectDone: (error: FfmpegError) => void = () => undefined;
  const done = new Promise<void>((resolve, reject) => {
    resolveDone = resolve;
    rejectDone = reject;
  });

  const child = spawn(options.ffmpegPath, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  const pid = child.pid;
  if (pid !== undefined) lowerPriority(pid, options.niceness ?? ENCODER_NICENESS, logger);
  options.processes.track(child);
  logger?.debug({ pid, args }, 'ffmpeg started');

  const finish = (): void => {
    if (settled) return;
    settled = true;
    clearTimeout(stallTimer);
    clearTimeout(killTimer);
    signal?.removeEventListener('abort', onAbort);
    if (source !== undefined && !source.destroyed) source.destroy();
    if (failure === undefined) {
      output.end();
      resolveDone();
    } else {
      rejectDone(failure);
    }
  };
  const fail = (reason: FfmpegFailureReason, message: string, cause?: unknown): void => {
    if (settled || failure !== undefined) return;
    failure = new FfmpegError(reason, message, { stderr: stderr.lines(), cause });
    clearTimeout(stallTimer);
    output.destroy(failure);
    source?.unpipe(child.stdin);
    source?.destroy();
    child.stdin.destroy();
    child.stdout.destroy();
    if (pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
    logger?.warn({ pid, reason }, 'killing ffmpeg');
    child.kill('SIGTERM');
    killTimer = setTimeout(() => child.kill('SIGKILL'), killGraceMs);
  };
  function onAbort(): void {
    fail('aborted', 'transcode aborted', signal?.reason);
  }
  const armStall = (): void => {
    clearTimeout(stallTimer);
    stallTimer = setTimeout(() => {
      // A full output buffer means the reader is behind, not that ffmpeg hangs.
      if (output.writableNeedDrain) armStall();
      else fail('stalled', `ffmpeg produced no output for ${stallTimeoutMs} ms`);
    }, stallTimeoutMs);
  };

  child.on('error', (error) => {
    if (pid === undefined) {
      fail('spawn', `could not start ffmpeg at ${options.ffmpegPath}: ${error.message}`, error);
      finish();
    } else {
      logger?.warn({ pid, err: error }, 'ffmpeg process error');
    }
  });
  child.on('close', (code, exitSignal) => {
    logger?.debug({ pid, code, signal: exitSignal }, 'ffmpeg exited');
    if (code !== 0 && failure === undefined) {
      const last = stderr.lines().at(-1) ?? 'no error output';
      const why = code === null ? `was killed by ${exitSignal}` : `exited with code ${code}`;
      failure = new FfmpegError('failed', `ffmpeg ${why}: ${last}`, {
        exitCode: code,
        exitSignal,
        stderr: stderr.lines(),
      });
      output.destroy(failure);
    }
    finish();
  });
  const feed = (input: Readable | WebReadableStream<Uint8Array>): void => {
    if (source !== undefined) throw new Error('this transcode already has its input');
    const fed = input instanceof Readable ? input : Readable.fromWeb(input);
    source = fed;
    if (settled || failure !== undefined || pid === undefined) {
      fed.destroy();
      return;
    }
    fed.on('error', (error) => fail('input', `audio input failed: ${error.message}`, error));
    fed.pipe(child.stdin);
    armStall();
  };
  if (pid === undefined) return { output, done, pid, feed };

  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
  child.stdout.on('data', armStall);
  child.stdout.pipe(output, { end: false });
  output.on('close', () => {
    if (!settled) fail('aborted', 'output closed before ffmpeg finished');
  });
  // EPIPE/ECONNRESET here means ffmpeg stopped reading (it exited); its exit code tells why.
  child.stdin.on('error', (error) => {
    logger?.debug({ pid, err: error }, 'ffmpeg stdin closed early');
    source?.unpipe(child.stdin);
    source?.destroy();
  });
  if (signal?.aborted === true) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  return { output, done, pid, feed };
}

/** Lowers a child's scheduling priority; a refusal (a sandbox) only costs smoothness, so it is logged. */
export function lowerPriority(
  pid: number,
  niceness: number,
  logger: TranscodeLogger | undefined,
): void {
  if (niceness === 0) return;
  try {
    setPriority(pid, niceness);
  } catch (error) {
    logger?.debug({ pid, err: error }, 'could not lower ffmpeg priority');
  }
}
