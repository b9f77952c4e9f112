/**
 * Decodes an audio file (a stream's backup file) into raw PCM of a live stream's format, so the
 * rest of a stream that failed mid-way can be fed to the ffmpeg already playing it.
 */
import { spawn } from 'node:child_process';
import { PassThrough, type Readable } from 'node:stream';
import { demuxerFor, type RawPcmInput } from './args.ts';
import { FfmpegError } from './errors.ts';
import type { FfmpegProcesses } from './processes.ts';
import { StderrTail } from './stderr.ts';

/** How to run one decode. */
export interface DecodeOptions {
  /** From `resolveFfmpeg().path`. */
  readonly ffmpegPath: string;
  /** Where the child is registered until reaped (the shutdown kill list). */
  readonly processes: FfmpegProcesses;
  /** The file's format as sniffed from its bytes (a file extension such as `wav`). */
  readonly extension: string;
  /** The PCM wanted out. */
  readonly pcm: RawPcmInput;
  /** Aborting kills ffmpeg and destroys the output. */
  readonly signal: AbortSignal;
}

/**
 * ffmpeg arguments that read a file of a known format on stdin and write raw PCM in `pcm` on
 * stdout; only the pipe protocol and that one demuxer are allowed. Throws for a format we do
 * not play.
 */
export function buildDecodeArgs(extension: string, pcm: RawPcmInput): string[] {
  const demuxer = demuxerFor(extension);
  if (demuxer === undefined) throw new RangeError(`the audio is ${extension}, a format not played`);
  return [
    ...['-hide_banner', '-nostdin', '-loglevel', 'error', '-protocol_whitelist', 'pipe'],
    ...['-f', demuxer, '-i', 'pipe:0', '-map', '0:a:0', '-vn', '-sn', '-dn'],
    ...['-ac', String(pcm.channels), '-ar', String(pcm.sampleRate)],
    ...['-f', pcm.format, 'pipe:1'],
  ];
}

/**
 * The PCM of `input` (consumed and destroyed), decoded by ffmpeg as it arrives; the output is
 * destroyed with an {@link FfmpegError} when ffmpeg fails or `signal` aborts.
 */
export function decodeToPcm(input: Readable, options: DecodeOptions): Readable {
  const output = new PassThrough();
  let args: string[];
  try {
    args = buildDecodeArgs(options.extension, options.pcm);
  } catch (error) {
    input.destroy();
    output.destroy(new FfmpegError('input', (error as Error).message));
    return output;
  }
  const stderr = new StderrTail();
  const child = spawn(options.ffmpegPath, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  options.processes.track(child);
  const fail = (error: FfmpegError): void => {
    if (!output.destroyed) output.destroy(error);
    input.destroy();
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  const onAbort = (): void => fail(new FfmpegError('aborted', 'decode aborted'));
  options.signal.addEventListener('abort', onAbort, { once: true });
  child.on('error', (error) =>
    fail(new FfmpegError('spawn', `could not start ffmpeg: ${error.message}`, { cause: error })),
  );
  child.on('close', (code, exitSignal) => {
    options.signal.removeEventListener('abort', onAbort);
    if (code === 0) return;
    const last = stderr.lines().at(-1) ?? 'no error output';
    fail(
      new FfmpegError('failed', `ffmpeg decode exited with ${code ?? exitSignal}: ${last}`, {
        exitCode: code,
        exitSignal,
        stderr: stderr.lines(),
      }),
    );
  });
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
  // EPIPE here means ffmpeg stopped reading (it exited); its exit code tells why.
  child.stdin.on('error', () => input.destroy());
  input.on('error', (error) =>
    fail(new FfmpegError('input', `audio input failed: ${error.message}`, { cause: error })),
  );
  input.pipe(child.stdin);
  child.stdout.pipe(output);
  // The reader let go: ffmpeg has no one to decode for.
  output.on('close', () => {
    if (output.readableEnded) return;
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  if (options.signal.aborted) onAbort();
  return output;
}
