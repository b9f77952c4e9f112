/**
 * Reads a WAV file's header in node, so its samples can go to a server's long-lived encoder as
 * raw PCM (no ffmpeg started to parse a container). Only the plain layouts a speech service
 * sends: 16-bit integer or 32-bit float PCM; anything else is left to ffmpeg.
 */
import { PassThrough, type Readable } from 'node:stream';
import type { RawPcmInput } from './args.ts';

/** How far a header may run before the samples (a long LIST chunk, padding). */
export const MAX_WAV_HEADER_BYTES = 64 * 1024;

const FORMAT_PCM = 1;
const FORMAT_FLOAT = 3;
const FORMAT_EXTENSIBLE = 0xfffe;

/** A parsed header: the samples' format, where they start and how many bytes (undefined: to the end). */
export interface WavLayout {
  readonly format: RawPcmInput;
  readonly dataOffset: number;
  readonly dataBytes: number | undefined;
}

/** What the bytes so far say: a layout, more bytes needed, or not a WAV we read ourselves (why). */
export type WavHeader =
  | { readonly kind: 'layout'; readonly layout: WavLayout }
  | { readonly kind: 'more' }
  | { readonly kind: 'other'; readonly why: string };

/** Parses the RIFF header at the start of `bytes` (the first bytes of a file). Pure. */
export function parseWavHeader(bytes: Uint8Array): WavHeader {
  if (bytes.length < 12) return { kind: 'more' };
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (ascii(bytes, 0) !== 'RIFF' || ascii(bytes, 8) !== 'WAVE') {
    return { kind: 'other', why: 'not a RIFF WAVE file' };
  }
  let format: RawPcmInput | undefined;
  let offset = 12;
  while (offset + 8 <= bytes.length) {
    const id = ascii(bytes, offset);
    const size = view.getUint32(offset + 4, true);
    const body = offset + 8;
    if (id === 'data') {
      if (format === undefined) return { kind: 'other', why: 'samples before their format' };
      // 0 and 0xffffffff are what streamed WAV writers put when the length was not known.
      const known = size !== 0 && size !== 0xffffffff;
      return {
        kind: 'layout',
        layout: { format, dataOffset: body, dataBytes: known ? size : undefined },
      };
    }
    if (id === 'fmt ') {
      // The whole chunk (40 bytes when extensible), unless it claims more than a header holds.
      if (body + Math.min(Math.max(size, 16), 40) > bytes.length) return { kind: 'more' };
      const parsed = readFormat(view, body, size);
      if (typeof parsed === 'string') return { kind: 'other', why: parsed };
      format = parsed;
    }
    offset = body + size + (size % 2);
    if (offset > MAX_WAV_HEADER_BYTES) return { kind: 'other', why: 'header too long' };
  }
  return { kind: 'more' };
}

function readFormat(view: DataView, at: number, size: number): RawPcmInput | string {
  let tag = view.getUint16(at, true);
  const channels = view.getUint16(at + 2, true);
  const sampleRate = view.getUint32(at + 4, true);
  const bits = view.getUint16(at + 14, true);
  if (tag === FORMAT_EXTENSIBLE) {
    if (size < 40 || at + 26 > view.byteLength) return 'extensible format without its sub-format';
    tag = view.getUint16(at + 24, true);
  }
  if (channels < 1 || channels > 2) return `${channels} channels`;
  if (sampleRate < 8000 || sampleRate > 192_000) return `${sampleRate} Hz`;
  if (tag === FORMAT_PCM && bits === 16) return { format: 's16le', sampleRate, channels };
  if (tag === FORMAT_FLOAT && bits === 32) return { format: 'f32le', sampleRate, channels };
  return `format ${tag} at ${bits} bits`;
}

function ascii(bytes: Uint8Array, at: number): string {
  return String.fromCharCode(...bytes.subarray(at, at + 4));
}

/** A WAV read: its samples alone as a stream; or, when not one we read, every byte as it came. */
export type WavRead =
  | {
      readonly kind: 'pcm';
      readonly format: RawPcmInput;
      readonly pcm: Readable;
      /** The header and then the samples: the file for ffmpeg after all (instead of `pcm`). */
      readonly whole: () => Readable;
    }
  | { readonly kind: 'other'; readonly why: string; readonly file: Readable };

/**
 * Reads `file`'s header (waiting for as many bytes as it takes, at most
 * {@link MAX_WAV_HEADER_BYTES}) and gives back its samples as a stream that stops at the data
 * chunk's end; a file we do not read comes back whole, header included, for ffmpeg. Destroying
 * what is returned destroys `file`; an error of `file` reaches it.
 */
export async function readWav(file: Readable): Promise<WavRead> {
  const head: Buffer[] = [];
  let length = 0;
  for (;;) {
    const chunk = await nextChunk(file);
    if (chunk === null) break;
    head.push(chunk);
    length += chunk.length;
    const header = parseWavHeader(Buffer.concat(head, length));
    if (header.kind === 'more' && length < MAX_WAV_HEADER_BYTES) continue;
    const bytes = Buffer.concat(head, length);
    if (header.kind === 'layout') {
      const { format, dataOffset, dataBytes } = header.layout;
      const pcm = continued(bytes.subarray(dataOffset), file, dataBytes);
      const whole = (): Readable => continued(bytes.subarray(0, dataOffset), pcm);
      return { kind: 'pcm', format, pcm, whole };
    }
    const why = header.kind === 'other' ? header.why : 'no samples in the first 64 KiB';
    return { kind: 'other', why, file: continued(bytes, file) };
  }
  return {
    kind: 'other',
    why: 'the file ended in its header',
    file: continued(Buffer.concat(head), file),
  };
}

/** The next chunk of `stream`, or null at its end; rejects with its error. */
function nextChunk(stream: Readable): Promise<Buffer | null> {
  const ready = stream.read() as Buffer | null;
  if (ready !== null) return Promise.resolve(ready);
  if (stream.readableEnded) return Promise.resolve(null);
  if (stream.errored) return Promise.reject(stream.errored);
  return new Promise((resolve, reject) => {
    const settle = (): void => {
      stream.off('readable', onReadable);
      stream.off('end', onEnd);
      stream.off('error', onError);
      stream.off('close', onClose);
    };
    const onReadable = (): void => {
      const chunk = stream.read() as Buffer | null;
      if (chunk === null) return;
      settle();
      resolve(chunk);
    };
    const onEnd = (): void => {
      settle();
      resolve(null);
    };
    const onError = (error: Error): void => {
      settle();
      reject(error);
    };
    const onClose = (): void => {
      settle();
      if (stream.errored) reject(stream.errored);
      else resolve(null);
    };
    stream.on('readable', onReadable);
    stream.once('end', onEnd);
    stream.once('error', onError);
    stream.once('close', onClose);
  });
}

/**
 * `first` and then what `rest` still gives, up to `limit` bytes in all (undefined: all); reads
 * follow the reader. Destroying what is returned destroys `rest` at once (a skipped item lets its
 * download go), and an error of `rest` reaches it.
 */
function continued(first: Buffer, rest: Readable, limit?: number): Readable {
  let left = limit ?? Number.POSITIVE_INFINITY;
  const out = new PassThrough({
    // At once, not on 'close' a tick later: a skipped item lets its download go.
    destroy: (error, callback) => {
      if (!rest.destroyed) rest.destroy();
      callback(error);
    },
  });
  const cut = (chunk: Buffer): Buffer => {
    const part = chunk.subarray(0, Math.min(chunk.length, left));
    left -= part.length;
    return part;
  };
  const onData = (chunk: Buffer): void => {
    const part = cut(chunk);
    if (part.length > 0 && !out.write(part)) rest.pause();
    if (left <= 0) finish();
  };
  const finish = (): void => {
    rest.off('data', onData);
    out.end();
    rest.destroy();
  };
  out.on('drain', () => rest.resume());
  rest.once('error', (error) => out.destroy(error));
  rest.once('end', () => out.end());
  const head = cut(first);
  if (head.length > 0) out.write(head);
  if (left <= 0) finish();
  else {
    rest.on('data', onData);
    // Reading the header left the stream paused: a 'data' listener alone does not start it.
    rest.resume();
  }
  return out;
}
