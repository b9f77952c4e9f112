/**
 * What one v3 stream may send and how long it may take: the most PCM its text can give, and how
 * much unread PCM is held before the socket pauses. A stream past these is broken, not buffered.
 */

/** Bytes of one second of stream PCM (float32, 24 kHz, mono). */
export const BYTES_PER_SECOND = 4 * 24_000;
/** Most audio any one character may give: speech is far under a second a character. */
const MAX_SECONDS_PER_CHAR = 1;
/** Audio a stream may always give, however short its text (a pause, a slow voice). */
const MIN_CAP_SECONDS = 30;
/** No stream ever gives more than this, whatever its text (a 10-minute speech). */
const CEILING_SECONDS = 600;

/**
 * PCM held unread (about 44 s) past which the socket is paused until its reader drained it: an
 * item waiting its turn keeps what it needs to start, not a whole runaway stream.
 */
export const PAUSE_BYTES = 4 * 1024 * 1024;

/**
 * The most PCM bytes a stream of `text` may send: a stream that sends more is broken (it never
 * completes, or repeats itself) and is failed rather than buffered without bound.
 */
export function streamByteCap(text: string): number {
  const seconds = Math.min(
    CEILING_SECONDS,
    Math.max(MIN_CAP_SECONDS, text.length * MAX_SECONDS_PER_CHAR),
  );
  return seconds * BYTES_PER_SECOND;
}
