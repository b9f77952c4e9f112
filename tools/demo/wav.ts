/** WAV files of what the demo heard: Opus packets decoded to PCM, and the length of a WAV. */
import OpusScript from 'opusscript';

/** Opus frames of one stream (48 kHz stereo) decoded into a 16-bit PCM WAV file. */
export function decodeToWav(frames: readonly Buffer[]): Buffer {
  const decoder = new OpusScript(48_000, 2);
  try {
    return pcmWav(Buffer.concat(frames.map((frame) => decoder.decode(frame))), 48_000, 2);
  } finally {
    decoder.delete();
  }
}

/** A WAV file around 16-bit little-endian PCM. */
export function pcmWav(pcm: Buffer, rate: number, channels: number): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + pcm.length, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(channels, 22);
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * channels * 2, 28);
  header.writeUInt16LE(channels * 2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(pcm.length, 40);
  return Buffer.concat([header, pcm]);
}
