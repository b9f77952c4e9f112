import { Readable } from 'node:stream';
import { fileTypeFromBuffer } from 'file-type';
import { TtsError } from './errors.ts';

/** Limits on fetching generated audio. */
export interface MediaPolicy {
  /** Origins (scheme://host[:port]) audio may be fetched from; anything else is refused. */
  readonly origins: readonly string[];
  readonly maxBytes: number;
  /** Longest single wait on the network: for the headers, or for the next chunk. */
  readonly timeoutMs: number;
  /**
   * Longest time spent waiting on the network in all, so a server that drips a byte
   * just before each idle timeout cannot hold a download forever. Time the reader
   * holds the stream back (playback at real time) does not count. Default 2 minutes.
   */
  readonly deadlineMs?: number | undefined;
  readonly fetch: typeof fetch;
}

const DEFAULT_DEADLINE_MS = 120_000;

/** A downloaded audio file, its format decided from its bytes. */
export interface Audio {
  readonly bytes: Buffer;
  readonly mime: string;
  readonly extension: string;
}

/** Refuses addresses outside the configured media origins (no server-side request forgery). */
export function checkMediaUrl(address: string, origins: readonly string[]): URL {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    throw new TtsError('malformed_response', 'the audio address is not a valid URL');
  }
  const allowed = origins.map((origin) => new URL(origin).origin);
  if (!allowed.includes(url.origin)) {
    throw new TtsError(
      'media_refused',
      `audio from ${url.origin} is refused: not a configured media origin`,
    );
  }
  return url;
}

/**
 * Opens the audio at `address` as a byte stream, checked against the media
 * policy (origin, size cap, timeouts). `timeoutMs` bounds the wait for the
 * response headers, then each wait for the next chunk, and `deadlineMs` all
 * those waits together: playback may read for minutes, so only time spent
 * waiting on the network counts. The stream
 * errors with a {@link TtsError} when a cap or a timeout is hit.
 */
export async function openAudio(
  address: string,
  policy: MediaPolicy,
  signal?: AbortSignal,
): Promise<Readable> {
  const url = checkMediaUrl(address, policy.origins);
  const watchdog = new Watchdog(policy.timeoutMs, policy.deadlineMs ?? DEFAULT_DEADLINE_MS);
  const combined = signal ? AbortSignal.any([signal, watchdog.signal]) : watchdog.signal;
  let response: Response;
  watchdog.arm();
  try {
    response = await policy.fetch(url, { signal: combined, redirect: 'error' });
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    if (watchdog.fired === 'deadline') throw stalled(watchdog);
    const kind = watchdog.fired ? 'timeout' : 'network';
    throw new TtsError(kind, `downloading the audio failed (${kind})`, { cause: error });
  } finally {
    watchdog.disarm();
  }
  if (!response.ok || response.body === null) {
    await response.body?.cancel();
    const kind =
      response.status === 404
        ? 'not_found'
        : response.status >= 500
          ? 'server_error'
          : 'bad_request';
    throw new TtsError(kind, `the audio could not be downloaded (HTTP ${response.status})`, {
      status: response.status,
    });
  }
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > policy.maxBytes) {
    await response.body.cancel();
    throw new TtsError('media_refused', `the audio is larger than ${policy.maxBytes} bytes`);
  }
  const chunks = readBody(response.body, watchdog, policy.maxBytes, signal);
  return Readable.from(chunks, { objectMode: false });
}

/**
 * Aborts the download when the network has kept us waiting `timeoutMs` at once, or
 * `deadlineMs` in all. Armed only while we wait (for headers, or for a chunk a reader
 * asked for).
 */
class Watchdog {
  readonly #controller = new AbortController();
  readonly #timeoutMs: number;
  readonly #deadlineMs: number;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #armedAt = 0;
  /** Network waiting so far, in ms, not counting the wait under way. */
  #waited = 0;
  #fired: 'idle' | 'deadline' | undefined;

  constructor(timeoutMs: number, deadlineMs: number) {
    this.#timeoutMs = timeoutMs;
    this.#deadlineMs = deadlineMs;
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  get timeoutMs(): number {
    return this.#timeoutMs;
  }

  get deadlineMs(): number {
    return this.#deadlineMs;
  }

  /** Why the download was aborted, if it was: one wait too long, or all of them. */
  get fired(): 'idle' | 'deadline' | undefined {
    return this.#fired;
  }

  arm(): void {
    this.disarm();
    const left = this.#deadlineMs - this.#waited;
    const cause = left <= this.#timeoutMs ? 'deadline' : 'idle';
    this.#armedAt = performance.now();
    this.#timer = setTimeout(
      () => {
        this.#fired = cause;
        this.#controller.abort(new DOMException('the media timeout elapsed', 'TimeoutError'));
      },
      Math.max(0, Math.min(left, this.#timeoutMs)),
    );
  }

  disarm(): void {
    if (this.#timer === undefined) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#waited += performance.now() - this.#armedAt;
  }

  /** Releases the connection when the consumer stops early (no effect once the body ended). */
  release(): void {
    this.disarm();
    this.#controller.abort();
  }
}

async function* readBody(
  body: ReadableStream<Uint8Array>,
  watchdog: Watchdog,
  maxBytes: number,
  signal: AbortSignal | undefined,
): AsyncGenerator<Buffer> {
  const reader = body.getReader();
  let total = 0;
  try {
    for (;;) {
      let next: Awaited<ReturnType<typeof reader.read>>;
      watchdog.arm();
      try {
        next = await reader.read();
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        if (watchdog.fired) throw stalled(watchdog);
        throw new TtsError('network', 'downloading the audio was interrupted', { cause: error });
      } finally {
        watchdog.disarm();
      }
      // A fetch that ignores its signal may end the body instead of failing it.
      if (watchdog.fired) throw stalled(watchdog);
      if (next.done) return;
      total += next.value.byteLength;
      if (total > maxBytes) {
        throw new TtsError('media_refused', `the audio is larger than ${maxBytes} bytes`);
      }
      yield Buffer.from(next.value.buffer, next.value.byteOffset, next.value.byteLength);
    }
  } finally {
    watchdog.release();
  }
}

function stalled(watchdog: Watchdog): TtsError {
  return new TtsError(
    'timeout',
    watchdog.fired === 'deadline'
      ? `the audio download took longer than ${watchdog.deadlineMs} ms`
      : `the audio download stalled: no data for ${watchdog.timeoutMs} ms`,
  );
}

/** Downloads the whole file and decides its format from the bytes, never from the address. */
export async function downloadAudio(
  address: string,
  policy: MediaPolicy,
  signal?: AbortSignal,
): Promise<Audio> {
  const stream = await openAudio(address, policy, signal);
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of stream) chunks.push(chunk as Buffer);
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    if (error instanceof TtsError) throw error;
    throw new TtsError('network', 'downloading the audio was interrupted', { cause: error });
  }
  const bytes = Buffer.concat(chunks);
  return { bytes, ...(await audioType(bytes)) };
}

/** The audio format of a file from its first bytes, or a TtsError when it is not audio we know. */
async function audioType(head: Buffer): Promise<{ mime: string; extension: string }> {
  const type = await fileTypeFromBuffer(head);
  if (type === undefined || !(type.mime.startsWith('audio/') || type.ext === 'ogg')) {
    throw new TtsError('malformed_response', 'the downloaded file is not audio in a known format');
  }
  return { mime: type.mime, extension: type.ext };
}

/** Bytes `file-type` needs to tell every format it knows apart. */
const SNIFF_BYTES = 4100;

/**
 * Decides the format of streamed audio from its first bytes, never from the address,
 * and hands back the same stream, those bytes put back at its front. Rejects (closing
 * the stream) when the bytes are not audio in a known format.
 */
export async function sniffAudio(
  stream: Readable,
): Promise<{ stream: Readable; mime: string; extension: string }> {
  try {
    const { head, ended } = await readHead(stream, SNIFF_BYTES);
    const type = await audioType(head);
    if (ended) return { stream: Readable.from([head], { objectMode: false }), ...type };
    stream.unshift(head);
    return { stream, ...type };
  } catch (error) {
    stream.destroy();
    throw error;
  }
}

/** Reads at least `bytes` (fewer when the stream ends first), leaving the stream paused. */
function readHead(stream: Readable, bytes: number): Promise<{ head: Buffer; ended: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (ended: boolean): void => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
      stream.off('close', onClose);
      resolve({ head: Buffer.concat(chunks), ended });
    };
    const onData = (chunk: Buffer): void => {
      chunks.push(Buffer.from(chunk));
      size += chunk.length;
      if (size >= bytes) {
        stream.pause();
        finish(false);
      }
    };
    const onEnd = (): void => finish(true);
    const onError = (error: unknown): void => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('close', onClose);
      reject(error);
    };
    const onClose = (): void => {
      if (!stream.readableEnded) onError(new TtsError('network', 'the audio stream closed early'));
    };
    stream.on('data', onData);
    stream.once('end', onEnd);
    stream.once('error', onError);
    stream.once('close', onClose);
  });
}
