/**
 * A live stream as its item plays it: its PCM passed on and counted, and when the stream fails
 * mid-way, the rest of the same speech from the generation's file (decoded, the bytes already
 * played left out), so the item is heard in full instead of cut off.
 */
import { PassThrough, type Readable } from 'node:stream';
import { TtsError } from '../tts/index.ts';
import { SkipBytes } from './pcm-rest.ts';

/** The whole speech again as PCM of the stream's format, after the stream failed with `error`. */
export type WholeSpeech = (error: unknown, signal: AbortSignal) => Promise<Readable>;

/**
 * What the item's ffmpeg reads: `pcm` while it flows; if it fails after a chunk or more, the
 * rest from `whole` (the file of the same generation, or one made again), continuing where it
 * stopped. Closing what this returns (the item left) lets `pcm` and any recovery go. A failure
 * to recover ends the input with the stream's own error, as before.
 */
export function playThrough(pcm: Readable, whole: WholeSpeech, signal: AbortSignal): Readable {
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
  forward(pcm, input, (chunk) => {
    played += chunk.length;
    return chunk;
  });
  pcm.on('end', () => input.end());
  pcm.on('close', () => {
    if (pcm.readableEnded || input.destroyed) return;
    const error = pcm.errored;
    // Let go or aborted (no error, or not the API's): nothing to carry on.
    if (!(error instanceof TtsError) || recovery.signal.aborted) {
      input.destroy(error ?? undefined);
      return;
    }
    whole(error, recovery.signal).then(
      (rest) => {
        if (input.destroyed) {
          rest.destroy();
          return;
        }
        const skip = new SkipBytes(played);
        forward(rest, input, (chunk) => skip.take(chunk));
        rest.on('end', () => input.end());
        rest.on('error', () => input.destroy(error));
        input.on('close', () => rest.destroy());
      },
      () => input.destroy(error),
    );
  });
  return input;
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
