/**
 * The rest of a live stream's PCM after it failed mid-way: the generation's whole audio again
 * (its file decoded), less the bytes already played, so the speech carries on where it stopped
 * with nothing heard twice, and starts on a frame. Pure.
 */

/** Drops the first `skip` bytes of a byte sequence that arrives in chunks of any size. */
export class SkipBytes {
  #left: number;

  constructor(skip: number) {
    if (!(Number.isInteger(skip) && skip >= 0)) throw new RangeError('skip must be a whole number');
    this.#left = skip;
  }

  /** What of `chunk` comes after the skipped bytes (empty while still skipping). */
  take(chunk: Buffer): Buffer {
    if (this.#left === 0) return chunk;
    const dropped = Math.min(this.#left, chunk.length);
    this.#left -= dropped;
    return chunk.subarray(dropped);
  }

  /** Bytes still to drop: more than zero at the end means the audio was shorter than what played. */
  get left(): number {
    return this.#left;
  }
}

/**
 * Passes on whole frames (`frameBytes`: one sample of every channel) of PCM that arrives in
 * chunks of any size, keeping a split frame's start until the rest of it comes, so a count of
 * bytes passed on is always a frame boundary.
 */
export class WholeFrames {
  readonly #frameBytes: number;
  #held: Buffer = Buffer.alloc(0);

  constructor(frameBytes: number) {
    if (!(Number.isInteger(frameBytes) && frameBytes >= 1)) {
      throw new RangeError('frameBytes must be a whole number of at least 1');
    }
    this.#frameBytes = frameBytes;
  }

  /** The whole frames `chunk` completes (with what was held); the split end is held. */
  take(chunk: Buffer): Buffer {
    const bytes = this.#held.length === 0 ? chunk : Buffer.concat([this.#held, chunk]);
    const whole = bytes.length - (bytes.length % this.#frameBytes);
    this.#held = Buffer.from(bytes.subarray(whole));
    return bytes.subarray(0, whole);
  }

  /** What is held at the end of the PCM (a frame cut short), given up. */
  flush(): Buffer {
    const held = this.#held;
    this.#held = Buffer.alloc(0);
    return held;
  }
}

/** Bytes of one frame of raw PCM: a sample (`f32le` 4, `s16le` 2 bytes) of each channel. */
export function frameBytesOf(format: {
  readonly format: 'f32le' | 's16le';
  readonly channels: number;
}): number {
  return (format.format === 'f32le' ? 4 : 2) * format.channels;
}
