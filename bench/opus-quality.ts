/**
 * Opus settings for speech (issue 38), chosen by a measure anyone can rerun rather than by ear:
 * espeak-ng speech (two voices) encoded with each candidate, decoded again by ffmpeg, and
 * compared with the source at 48 kHz by log-spectral distance (dB, 20 ms frames, 100 Hz–8 kHz,
 * frames within 50 dB of the loudest); beside it the encoder's CPU per second of speech
 * (ffmpeg's reaped time, the 50 ms start taken off). `npm run bench -- --only opus`.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type FfmpegRun, reapedCpuMs } from './many-voices-floor.ts';
import { formatNumber, oursRow, type Row } from './stats.ts';

/** One set of encoder options to weigh. */
export interface OpusCandidate {
  readonly name: string;
  readonly args: readonly string[];
}

/** The candidates, today's first. */
export const OPUS_CANDIDATES: readonly OpusCandidate[] = [
  { name: 'today: 64 kb/s stereo, complexity 10', args: ['-ac', '2', '-b:a', '64k'] },
  { name: 'plain bot: 96 kb/s stereo, complexity 10', args: ['-ac', '2', '-b:a', '96k'] },
  {
    name: '64 kb/s stereo, complexity 5',
    args: ['-ac', '2', '-b:a', '64k', '-compression_level', '5'],
  },
  {
    name: '48 kb/s stereo, complexity 5',
    args: ['-ac', '2', '-b:a', '48k', '-compression_level', '5'],
  },
  {
    name: '64 kb/s stereo, complexity 3',
    args: ['-ac', '2', '-b:a', '64k', '-compression_level', '3'],
  },
  {
    name: '64 kb/s stereo, complexity 0',
    args: ['-ac', '2', '-b:a', '64k', '-compression_level', '0'],
  },
  {
    name: '48 kb/s mono, complexity 5',
    args: ['-ac', '1', '-b:a', '48k', '-compression_level', '5'],
  },
];

const SENTENCES = [
  'The quick brown fox jumps over the lazy dog while the streamer reads every message aloud.',
  'Nobody in the voice channel should hear a stutter in the middle of a long sentence like this one.',
];

/** Runs every candidate on espeak-ng speech and returns one row each. */
export async function opusQualityBench(): Promise<Row[]> {
  const dir = await mkdtemp(join(tmpdir(), 'opus-quality-'));
  try {
    const sources: { wav: Buffer; path: string }[] = [];
    for (const [i, voice] of ['en', 'en+f3'].entries()) {
      const path = join(dir, `speech-${i}.wav`);
      await run('espeak-ng', ['-v', voice, '-w', path, SENTENCES.join(' ')]);
      sources.push({ wav: await readFile(path), path });
    }
    const rows: Row[] = [];
    for (const candidate of OPUS_CANDIDATES) {
      const distances: number[] = [];
      let cpuPerSecond = 0;
      for (const { wav, path } of sources) {
        const reference = await pcm48k(['-f', 'wav', '-i', 'pipe:0'], wav);
        const encode = encodeArgs(candidate);
        const ogg = await collect(encode, wav);
        const decoded = await pcm48k(['-f', 'ogg', '-i', 'pipe:0'], ogg);
        distances.push(logSpectralDistance(reference, decoded));
        const seconds = reference.length / 48_000;
        const fromFile = encode.map((a) => (a === 'pipe:0' ? path : a));
        const looped: FfmpegRun = { args: ['-stream_loop', '7', ...fromFile] };
        const start = await reapedCpuMs({ args: ['-t', '0.1', ...fromFile] });
        cpuPerSecond += ((await reapedCpuMs(looped)) - start) / (seconds * 8) / sources.length;
      }
      const lsd = distances.reduce((a, b) => a + b, 0) / distances.length;
      rows.push(
        oursRow(
          'Opus for speech',
          `${candidate.name}: log-spectral distance to the source / encoder CPU per s of speech`,
          `${formatNumber(lsd, 2)} dB / ${formatNumber(cpuPerSecond, 1)} ms`,
        ),
      );
    }
    return rows;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function encodeArgs(candidate: OpusCandidate): string[] {
  return [
    ...['-hide_banner', '-loglevel', 'error', '-f', 'wav', '-i', 'pipe:0', '-ar', '48000'],
    ...candidate.args,
    ...['-c:a', 'libopus', '-f', 'ogg', 'pipe:1'],
  ];
}

/** Decodes `input` (after `inputArgs`) to mono 48 kHz floats. */
async function pcm48k(inputArgs: readonly string[], input: Buffer): Promise<Float32Array> {
  const args = ['-hide_banner', '-loglevel', 'error', ...inputArgs];
  const raw = await collect([...args, '-ac', '1', '-ar', '48000', '-f', 'f32le', 'pipe:1'], input);
  return new Float32Array(raw.buffer, raw.byteOffset, Math.floor(raw.length / 4));
}

function collect(args: readonly string[], input: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn('ffmpeg', args, { stdio: ['pipe', 'pipe', 'inherit'] });
    const parts: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => parts.push(chunk));
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0 ? resolve(Buffer.concat(parts)) : reject(new Error(`ffmpeg exited ${code}`)),
    );
    child.stdin.end(input);
  });
}

function run(command: string, args: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: 'ignore' });
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} exited ${code}`)),
    );
  });
}

const FRAME = 960;
const FFT = 1024;

/** Mean log-spectral distance (dB) between two 48 kHz signals over frames with sound. */
export function logSpectralDistance(reference: Float32Array, test: Float32Array): number {
  const frames = Math.floor(Math.min(reference.length, test.length) / FRAME);
  const low = Math.ceil((100 * FFT) / 48_000);
  const high = Math.floor((8000 * FFT) / 48_000);
  const spectra: [Float64Array, Float64Array][] = [];
  let loudest = 0;
  for (let f = 0; f < frames; f++) {
    const a = powerSpectrum(reference, f * FRAME);
    const b = powerSpectrum(test, f * FRAME);
    spectra.push([a, b]);
    loudest = Math.max(
      loudest,
      a.reduce((s, v) => s + v, 0),
    );
  }
  let total = 0;
  let counted = 0;
  for (const [a, b] of spectra) {
    if (a.reduce((s, v) => s + v, 0) < loudest * 1e-5) continue;
    let sum = 0;
    for (let k = low; k <= high; k++) {
      const d = 10 * Math.log10(((a[k] ?? 0) + 1e-10) / ((b[k] ?? 0) + 1e-10));
      sum += d * d;
    }
    total += Math.sqrt(sum / (high - low + 1));
    counted++;
  }
  return counted === 0 ? Number.NaN : total / counted;
}

/** Power spectrum of one Hann-windowed frame (radix-2 FFT, zero-padded to 1024). */
function powerSpectrum(signal: Float32Array, offset: number): Float64Array {
  const re = new Float64Array(FFT);
  const im = new Float64Array(FFT);
  for (let i = 0; i < FRAME; i++) {
    const w = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (FRAME - 1));
    re[i] = (signal[offset + i] ?? 0) * w;
  }
  for (let i = 1, j = 0; i < FFT; i++) {
    let bit = FFT >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      [re[i], re[j]] = [re[j] ?? 0, re[i] ?? 0];
      [im[i], im[j]] = [im[j] ?? 0, im[i] ?? 0];
    }
  }
  for (let size = 2; size <= FFT; size <<= 1) {
    const angle = (-2 * Math.PI) / size;
    for (let start = 0; start < FFT; start += size) {
      for (let k = 0; k < size / 2; k++) {
        const cos = Math.cos(angle * k);
        const sin = Math.sin(angle * k);
        const a = start + k;
        const b = a + size / 2;
        const tr = (re[b] ?? 0) * cos - (im[b] ?? 0) * sin;
        const ti = (re[b] ?? 0) * sin + (im[b] ?? 0) * cos;
        re[b] = (re[a] ?? 0) - tr;
        im[b] = (im[a] ?? 0) - ti;
        re[a] = (re[a] ?? 0) + tr;
        im[a] = (im[a] ?? 0) + ti;
      }
    }
  }
  const power = new Float64Array(FFT / 2);
  for (let k = 0; k < FFT / 2; k++) power[k] = (re[k] ?? 0) ** 2 + (im[k] ?? 0) ** 2;
  return power;
}
