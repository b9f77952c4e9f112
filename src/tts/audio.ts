import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { fileTypeFromBuffer } from 'file-type';
import { TtsError } from './errors.ts';

/** Limits on fetching generated audio. */
export interface MediaPolicy {
  /** Origins (scheme://host[:port]) audio may be fetched from; anything else is refused. */
  readonly origins: readonly string[];
  readonly maxBytes: number;
  readonly timeoutMs: number;
  readonly fetch: typeof fetch;
}

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
 * policy (origin, size cap, timeout). The stream errors when a cap is hit.
 */
export async function openAudio(
  address: string,
  policy: MediaPolicy,
  signal?: AbortSignal,
): Promise<Readable> {
  const url = checkMediaUrl(address, policy.origins);
  const timeout = AbortSignal.timeout(policy.timeoutMs);
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  let response: Response;
  try {
    response = await policy.fetch(url, { signal: combined, redirect: 'error' });
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    const kind = timeout.aborted ? 'timeout' : 'network';
    throw new TtsError(kind, `downloading the audio failed (${kind})`, { cause: error });
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
  const body = Readable.fromWeb(response.body as WebReadableStream<Uint8Array>);
  return Readable.from(capBytes(body, policy.maxBytes), { objectMode: false });
}

async function* capBytes(chunks: AsyncIterable<Buffer>, maxBytes: number): AsyncGenerator<Buffer> {
  let total = 0;
  for await (const chunk of chunks) {
    total += chunk.length;
    if (total > maxBytes) {
      throw new TtsError('media_refused', `the audio is larger than ${maxBytes} bytes`);
    }
    yield chunk;
  }
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
  const type = await fileTypeFromBuffer(bytes);
  if (type === undefined || !(type.mime.startsWith('audio/') || type.ext === 'ogg')) {
    throw new TtsError('malformed_response', 'the downloaded file is not audio in a known format');
  }
  return { bytes, mime: type.mime, extension: type.ext };
}
