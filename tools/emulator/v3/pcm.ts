/** The stream's audio: a PCM WAV turned into raw float32 little-endian, 24 kHz, mono. Pure. */

/** Sample rate of every streamed chunk (`api-reference/streaming.mdx`). */
export const STREAM_RATE = 24_000;
/** Bytes per streamed sample (float32). */
export const BYTES_PER_SAMPLE = 4;

interface WavData {
  rate: number;
  channels: number;
  bits: number;
  float: boolean;
  data: Buffer;
}

function readWav(wav: Buffer): WavData {
  if (wav.length < 12 || wav.toString('ascii', 0, 4) !== 'RIFF')
    throw new Error('not a RIFF/WAVE file');
  let format: Omit<WavData, 'data'> | undefined;
  let offset = 12;
  while (offset + 8 <= wav.length) {
    const id = wav.toString('ascii', offset, offset + 4);
    const size = wav.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === 'fmt ' && body + 16 <= wav.length) {
      const tag = wav.readUInt16LE(body);
      format = {
        channels: wav.readUInt16LE(body + 2),
        rate: wav.readUInt32LE(body + 4),
        bits: wav.readUInt16LE(body + 14),
        float: tag === 3,
      };
    } else if (id === 'data' && format) {
      return { ...format, data: wav.subarray(body, Math.min(wav.length, body + size)) };
    }
    offset = body + size + (size % 2);
  }
  throw new Error('WAV has no fmt and data chunks');
}

/** Mono samples in [-1, 1] from 16-bit integer or 32-bit float PCM (channels averaged). */
function monoSamples(wav: WavData): Float32Array {
  const width = wav.bits / 8;
  if (!(wav.bits === 16 && !wav.float) && !(wav.bits === 32 && wav.float)) {
    throw new Error(
      `unsupported WAV sample format: ${wav.bits}-bit ${wav.float ? 'float' : 'integer'}`,
    );
  }
  const frames = Math.floor(wav.data.length / (width * wav.channels));
  const out = new Float32Array(frames);
  for (let i = 0; i < frames; i++) {
    let sum = 0;
    for (let c = 0; c < wav.channels; c++) {
      const at = (i * wav.channels + c) * width;
      sum += wav.float ? wav.data.readFloatLE(at) : wav.data.readInt16LE(at) / 32768;
    }
    out[i] = sum / wav.channels;
  }
  return out;
}

/** How many 24 kHz samples a WAV of `frames` frames at `rate` becomes. */
export function streamSamples(frames: number, rate: number): number {
  return Math.round((frames * STREAM_RATE) / rate);
}

/** Converts a PCM WAV to the stream's float32 LE 24 kHz mono bytes (linear resampling). */
export function wavToStreamPcm(wav: Buffer): Buffer {
  const parsed = readWav(wav);
  const input = monoSamples(parsed);
  const length = streamSamples(input.length, parsed.rate);
  const out = Buffer.alloc(length * BYTES_PER_SAMPLE);
  const step = parsed.rate / STREAM_RATE;
  for (let i = 0; i < length; i++) {
    const position = i * step;
    const left = Math.floor(position);
    const a = input[Math.min(left, input.length - 1)] ?? 0;
    const b = input[Math.min(left + 1, input.length - 1)] ?? 0;
    out.writeFloatLE(a + (b - a) * (position - left), i * BYTES_PER_SAMPLE);
  }
  return out;
}

/** Cuts PCM into chunks of `chunkMs` of audio (the last one shorter). */
export function pcmChunks(pcm: Buffer, chunkMs: number): Buffer[] {
  const size = Math.max(1, Math.round((STREAM_RATE * chunkMs) / 1000)) * BYTES_PER_SAMPLE;
  const chunks: Buffer[] = [];
  for (let at = 0; at < pcm.length; at += size) chunks.push(pcm.subarray(at, at + size));
  return chunks;
}
