/** WAV helpers: a sine-tone fallback and header repair for streamed WAV output. */

const TONE_RATE = 16_000;
/** Seconds of tone per character at speed 1, close to ordinary speech. */
export const SECONDS_PER_CHAR = 0.06;

/** A 16-bit mono PCM WAV of a soft sine tone whose length follows the text length. */
export function toneWav(
  textLength: number,
  speed = 1,
  frequency = 440,
  secondsPerChar = SECONDS_PER_CHAR,
): Buffer {
  const seconds = Math.max(0.2, (textLength * secondsPerChar) / speed);
  return sineWav(seconds, { rate: TONE_RATE, frequency, amplitude: 0.3, fadeMs: 20 });
}

/** A 16-bit mono PCM WAV of a sine tone, faded in and out over `fadeMs` when given. */
export function sineWav(
  seconds: number,
  options: { rate?: number; frequency?: number; amplitude?: number; fadeMs?: number } = {},
): Buffer {
  const { rate = 48_000, frequency = 440, amplitude = 0.5, fadeMs = 0 } = options;
  const samples = Math.round(seconds * rate);
  const wav = Buffer.alloc(44 + samples * 2);
  writeHeader(wav, rate, samples * 2);
  const fade = Math.min(samples / 2, (rate * fadeMs) / 1000);
  for (let i = 0; i < samples; i++) {
    const envelope = fade > 0 ? Math.min(1, i / fade, (samples - 1 - i) / fade) : 1;
    const value = Math.sin((2 * Math.PI * frequency * i) / rate) * amplitude * envelope;
    wav.writeInt16LE(Math.round(value * 32767), 44 + i * 2);
  }
  return wav;
}

function writeHeader(wav: Buffer, rate: number, dataBytes: number): void {
  wav.write('RIFF', 0, 'ascii');
  wav.writeUInt32LE(36 + dataBytes, 4);
  wav.write('WAVE', 8, 'ascii');
  wav.write('fmt ', 12, 'ascii');
  wav.writeUInt32LE(16, 16);
  wav.writeUInt16LE(1, 20); // PCM
  wav.writeUInt16LE(1, 22); // mono
  wav.writeUInt32LE(rate, 24);
  wav.writeUInt32LE(rate * 2, 28);
  wav.writeUInt16LE(2, 32);
  wav.writeUInt16LE(16, 34);
  wav.write('data', 36, 'ascii');
  wav.writeUInt32LE(dataBytes, 40);
}

/**
 * Rewrites the RIFF and `data` sizes of a WAV written to a pipe (espeak-ng leaves
 * placeholder sizes there because it cannot seek back). Returns the same buffer.
 */
export function fixWavSizes(wav: Buffer): Buffer {
  if (wav.length < 12 || wav.toString('ascii', 0, 4) !== 'RIFF') {
    throw new Error('not a RIFF/WAVE stream');
  }
  wav.writeUInt32LE(wav.length - 8, 4);
  let offset = 12;
  while (offset + 8 <= wav.length) {
    const id = wav.toString('ascii', offset, offset + 4);
    if (id === 'data') {
      wav.writeUInt32LE(wav.length - offset - 8, offset + 4);
      return wav;
    }
    offset += 8 + wav.readUInt32LE(offset + 4) + (wav.readUInt32LE(offset + 4) % 2);
  }
  throw new Error('WAV stream has no data chunk');
}

/** Milliseconds of audio in a PCM WAV, from its `fmt ` and `data` chunks. */
export function wavDurationMs(wav: Buffer): number {
  let offset = 12;
  let byteRate = 0;
  while (offset + 8 <= wav.length) {
    const id = wav.toString('ascii', offset, offset + 4);
    const size = wav.readUInt32LE(offset + 4);
    if (id === 'fmt ' && offset + 20 <= wav.length) byteRate = wav.readUInt32LE(offset + 16);
    if (id === 'data' && byteRate > 0)
      return (Math.min(size, wav.length - offset - 8) / byteRate) * 1000;
    offset += 8 + size + (size % 2);
  }
  throw new Error('not a PCM WAV (no fmt and data chunks)');
}
