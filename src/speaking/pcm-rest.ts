/**
 * The rest of a live stream's PCM after it failed mid-way: the generation's whole audio again
 * (its file decoded), less the bytes already played, so the speech carries on where it stopped
 * with nothing heard twice. Pure.
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
