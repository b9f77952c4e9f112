/**
 * A live stream as its item plays it: its PCM passed on and counted, and when the stream fails
 * mid-way, the rest of the same speech from the generation's file (decoded, the bytes already
 * played left out), so the item is heard in full instead of cut off.
 */
import { PassThrough, type Readable } from 'node:stream';
import { TtsError } from '../tts/index.ts';
import { SkipBytes, WholeFrames } from './pcm-rest.ts';

/** The whole speech again as PCM of the stream's format, after the stream failed with `error`. */
export type WholeSpeech = (error: unknown, signal: AbortSignal) => Promise<Readable>;

/**
 * What the item's ffmpeg reads: `pcm` while it flows; if it fails after a chunk or more, the
 * rest from `whole` (the file of the same generation, or one made again), continuing where it
 * stopped. Only whole frames of `frameBytes` (a sample of every channel) are passed on while the
 * stream flows, so the rest starts on a frame and no sample is made of two sources. Closing what
 * this returns (the item left) lets `pcm` and any recovery go. A failure to recover (once: the
 * rest failing too is not recovered again) ends the input with the stream's error, its message
 * saying why the rest was not heard.
 */
export function playThrough(
  pcm: Readable,
  whole: WholeSpeech,
  signal: AbortSignal,
  frameBytes = 1,
): Readable {
  const input = new PassThrough();
  const recovery = new AbortController();
  const stop = (): void => recovery.abort(signal.reason);
  signal.addEventListener('abort', stop, { once: true });
  input.on('close', () => {
    signal.removeEventListener('abort', stop);
    recovery.abort(new Error('the item let its audio go'));
    if (!pcm.destroyed) pcm.destroy();
  });
  // Bytes passed on: all of them reach ffmpeg, so the rest starts after them.
  let played = 0;
  const frames = new WholeFrames(frameBytes);
  forward(pcm, input, (chunk) => {
    const out = frames.take(chunk);
    played += out.length;
    return out;
  });
  pcm.on('end', () => {
    const tail = frames.flush();
    if (tail.length > 0 && !input.destroyed) input.write(tail);
    input.end();
  });
  pcm.on('close', () => {
    if (pcm.readableEnded || input.destroyed) return;
    const error = pcm.errored;
    // Let go or aborted (no error, or not the API's): nothing to carry on.
    if (!(error instanceof TtsError) || recovery.signal.aborted) {
      input.destroy(error ?? undefined);
      return;
    }
    const unrecovered = (why: unknown): void => {
      if (!input.destroyed) input.destroy(notRecovered(error, why));
    };
    whole(error, recovery.signal).then((rest) => {
      if (input.destroyed) {
        rest.destroy();
        return;
      }
      const skip = new SkipBytes(played);
      forward(rest, input, (chunk) => skip.take(chunk));
      rest.on('end', () => input.end());
      rest.on('error', unrecovered);
      input.on('close', () => rest.destroy());
    }, unrecovered);
  });
  return input;
}

/**
 * The stream's own failure (its kind kept, so the item fails for the same reason), its message
 * saying why its rest was not heard either: the one log line of the item's end tells both.
 */
function notRecovered(error: TtsError, why: unknown): TtsError {
  const reason = why instanceof Error ? why.message : String(why);
  const { status, retryAt, generationId, limit } = error;
  return new TtsError(error.kind, `${error.message} (its rest not recovered: ${reason})`, {
    cause: why,
    ...(status === undefined ? {} : { status }),
    ...(retryAt === undefined ? {} : { retryAt }),
    ...(generationId === undefined ? {} : { generationId }),
    ...(limit === undefined ? {} : { limit }),
  });
}

/** Passes `from`'s chunks (as `map` gives them) into `to`, at the pace `to` drains. */
function forward(from: Readable, to: PassThrough, map: (chunk: Buffer) => Buffer): void {
  from.on('data', (chunk: Buffer) => {
    const out = map(chunk);
    if (out.length === 0 || to.destroyed) return;
    if (!to.write(out)) {
      from.pause();
      to.once('drain', () => from.resume());
    }
  });
}
