import OpusScript from 'opusscript';

const SAMPLE_RATE = 48_000;
const CHANNELS = 2;
const BYTES_PER_SAMPLE = 2;

/** The Opus frame @discordjs/voice sends (five times) after a track ends. */
export const SILENCE_FRAME = Buffer.from([0xf8, 0xff, 0xfe]);

/** Whether an Opus frame is the silence frame, which the fake does not decode or count. */
export function isSilenceFrame(frame: Buffer): boolean {
  return frame.equals(SILENCE_FRAME);
}

/**
 * Decoders the WebAssembly memory holds room for before any is used. opusscript keeps views of
 * that memory made when a decoder is built, and they go stale when it grows: with some twenty
 * decoders alive, the next one grew it and every older one failed ("memory access out of
 * bounds"), so a server with many voices heard nothing. Room made once (and freed) is reused.
 */
const RESERVED_DECODERS = 160;
let reserved = false;

function reserveMemory(): void {
  if (reserved) return;
  reserved = true;
  const decoders = Array.from(
    { length: RESERVED_DECODERS },
    () => new OpusScript(SAMPLE_RATE, CHANNELS),
  );
  for (const decoder of decoders) decoder.delete();
}

/** Decodes one sender's Opus stream to 48 kHz stereo PCM; Opus decoders keep state per stream. */
export class OpusStreamDecoder {
  #decoder: OpusScript | undefined;

  constructor() {
    reserveMemory();
    this.#decoder = new OpusScript(SAMPLE_RATE, CHANNELS);
  }

  /** Decodes one frame and returns the number of samples per channel it holds. */
  decode(frame: Buffer): number {
    if (!this.#decoder) throw new Error('Opus decoder already released');
    const pcm = this.#decoder.decode(frame);
    return pcm.length / (CHANNELS * BYTES_PER_SAMPLE);
  }

  /** Frees the decoder's WebAssembly memory. */
  release(): void {
    this.#decoder?.delete();
    this.#decoder = undefined;
  }
}

/** Duration in milliseconds of a number of 48 kHz samples per channel. */
export function samplesToMs(samples: number): number {
  return (samples / SAMPLE_RATE) * 1000;
}
