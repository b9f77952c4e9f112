// Fixtures for the audio tests: synthetic audio, slow streams, and a /proc check for ffmpeg children.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';

/** A mono 16-bit PCM WAV file holding a sine tone, RIFF header written by hand. */
export function sineWav(seconds: number, sampleRate = 24_000, frequency = 440): Buffer {
  const samples = Math.round(seconds * sampleRate);
  const data = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) {
    const value = Math.round(Math.sin((2 * Math.PI * frequency * i) / sampleRate) * 0.5 * 32767);
    data.writeInt16LE(value, i * 2);
  }
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16); // fmt chunk size
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * 2, 28); // byte rate
  header.writeUInt16LE(2, 32); // block align
  header.writeUInt16LE(16, 34); // bits per sample
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

/** A 3 s sine tone encoded by the real ffmpeg with the given muxer and codec. */
export function encodedTone(format: string, codec: string): Promise<Buffer> {
  const args = ['-hide_banner', '-nostdin', '-loglevel', 'error', '-f', 'lavfi'];
  args.push('-i', 'sine=frequency=440:sample_rate=44100:duration=3', '-c:a', codec);
  args.push('-f', format, 'pipe:1');
  return new Promise((resolve, reject) => {
    execFile('ffmpeg', args, { encoding: 'buffer', maxBuffer: 16 << 20 }, (error, stdout) => {
      if (error === null) resolve(stdout);
      else reject(error);
    });
  });
}

/** What a {@link slowStream} reports: whether it has delivered its last byte. */
export interface SlowStreamState {
  ended: boolean;
}

/** Streams `buffer` in `chunkSize` pieces with `delayMs` between them, like a slow download. */
export function slowStream(
  buffer: Buffer,
  chunkSize: number,
  delayMs: number,
): { stream: Readable; state: SlowStreamState } {
  const state: SlowStreamState = { ended: false };
  async function* chunks(): AsyncGenerator<Buffer> {
    for (let offset = 0; offset < buffer.length; offset += chunkSize) {
      yield buffer.subarray(offset, offset + chunkSize);
      await sleep(delayMs);
    }
    state.ended = true;
  }
  return { stream: Readable.from(chunks(), { objectMode: false }), state };
}

/** Reads a stream to the end, failing with its error. */
export async function collect(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of stream) parts.push(chunk as Buffer);
  return Buffer.concat(parts);
}

/** Pids of processes named ffmpeg whose parent is this process (zombies included). */
export function ffmpegChildren(parent = process.pid): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch (error) {
      if (
        (error as { code?: unknown }).code === 'ENOENT' ||
        (error as { code?: unknown }).code === 'ESRCH'
      )
        continue;
      throw error;
    }
    const open = stat.indexOf('(');
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(open + 1, close);
    const ppid = Number(stat.slice(close + 2).split(' ')[1]);
    if (comm === 'ffmpeg' && ppid === parent) found.push(Number(entry));
  }
  return found;
}
