import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, test } from 'vitest';
import {
  buildDecodeArgs,
  type DecodeOptions,
  decodeToPcm,
  FfmpegProcesses,
} from '../../src/audio/index.ts';

const PCM = { format: 'f32le', sampleRate: 24_000, channels: 1 } as const;

/** One second of a 440 Hz tone at 24 kHz mono, as a WAV file. */
function toneWav(): Buffer {
  return execFileSync('ffmpeg', [
    ...['-v', 'error', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=1:sample_rate=24000'],
    ...['-ac', '1', '-f', 'wav', 'pipe:1'],
  ]);
}

/** Decodes `file` (a `wav` unless told) into {@link PCM}, with a process list of its own. */
function decode(file: Readable, options: Partial<DecodeOptions> = {}) {
  const processes = new FfmpegProcesses();
  const out = decodeToPcm(file, {
    ffmpegPath: 'ffmpeg',
    processes,
    extension: 'wav',
    pcm: PCM,
    signal: new AbortController().signal,
    ...options,
  });
  return { out, processes };
}

/** Everything `out` gives until it ends. */
async function readAll(out: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of out) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Resolves once every child in `processes` has exited (at most 5 s, then the test says so). */
async function reaped(processes: FfmpegProcesses): Promise<void> {
  for (let waited = 0; processes.pids().length > 0 && waited < 5000; waited += 20) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('buildDecodeArgs', () => {
  test('reads only the sniffed demuxer through the pipe, writes the PCM asked for', () => {
    const args = buildDecodeArgs('mp3', PCM);
    expect(args).toEqual(expect.arrayContaining(['-protocol_whitelist', 'pipe']));
    expect(args.join(' ')).toContain('-f mp3 -i pipe:0');
    expect(args.join(' ')).toMatch(/-ac 1 -ar 24000 -f f32le pipe:1$/);
  });

  test.each(['m3u8', 'hls', 'txt'])('refuses %s, a format we do not play', (extension) => {
    expect(() => buildDecodeArgs(extension, PCM)).toThrow(RangeError);
  });
});

describe('decodeToPcm', () => {
  test('a WAV file comes out as the raw PCM of its samples', async () => {
    const { out, processes } = decode(Readable.from([toneWav()]));
    expect((await readAll(out)).length).toBe(24_000 * 4);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(processes.pids()).toEqual([]);
  });

  test('a file of another format (44.1 kHz stereo MP3) comes out in the PCM asked for, so a skip counts its bytes', async () => {
    // One second at 44.1 kHz stereo, written as a file is (its LAME header says the encoder
    // delay, which the decoder drops): decoded to 24 kHz mono f32le, its sound starts where the
    // stream's does, so the bytes played of the stream are the bytes to skip of the file.
    const dir = mkdtempSync(join(tmpdir(), 'decode-'));
    const path = join(dir, 'speech.mp3');
    execFileSync('ffmpeg', [
      ...['-v', 'error', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=1:sample_rate=44100'],
      ...['-ac', '2', '-c:a', 'libmp3lame', '-b:a', '128k', path],
    ]);
    const mp3 = readFileSync(path);
    rmSync(dir, { recursive: true });
    const pcm = await readAll(decode(Readable.from([mp3]), { extension: 'mp3' }).out);
    expect(pcm.length % 4).toBe(0);
    const samples = Array.from({ length: pcm.length / 4 }, (_, i) => pcm.readFloatLE(i * 4));
    // The tone starts at once: no encoder delay left in front (25 ms would be heard twice).
    expect(samples.findIndex((sample) => Math.abs(sample) > 0.01)).toBeLessThanOrEqual(2);
    // One second, give or take the end's padding (under an MP3 frame, 627 samples at 24 kHz).
    expect(samples.length).toBeGreaterThanOrEqual(24_000);
    expect(samples.length).toBeLessThan(24_000 + 627);
  });

  test('the reader letting go (a skip) kills ffmpeg and lets the file go, with no error left unheard', async () => {
    const file = new Readable({ read: () => undefined });
    file.push(toneWav().subarray(0, 4096)); // a file still downloading: ffmpeg waits for more
    const { out, processes } = decode(file);
    const errors: unknown[] = [];
    out.on('error', (error) => errors.push(error));
    expect(processes.pids()).toHaveLength(1);
    out.destroy();
    await new Promise((resolve) => file.once('close', resolve));
    await reaped(processes);
    expect(processes.pids()).toEqual([]);
    expect(errors).toEqual([]);
  });

  test('ffmpeg exiting while the file still flows (EPIPE on its stdin) fails the output once, and lets the file go', async () => {
    let sent = 0;
    // Not a WAV at all, and endless: ffmpeg gives up and its stdin closes under the writes.
    const file = new Readable({
      read() {
        sent++;
        this.push(Buffer.alloc(64 * 1024, 7));
      },
    });
    const { out, processes } = decode(file);
    const failed = await new Promise<Error>((resolve) => out.once('error', resolve));
    expect(failed).toMatchObject({ name: 'FfmpegError', reason: 'failed' });
    await new Promise((resolve) => setImmediate(resolve));
    expect(file.destroyed).toBe(true);
    expect(sent).toBeGreaterThan(0);
    expect(processes.pids()).toEqual([]);
  });

  test('no ffmpeg to start fails the output and lets the file go', async () => {
    const file = new Readable({ read: () => undefined });
    const { out } = decode(file, { ffmpegPath: '/nonexistent/ffmpeg' });
    expect(await new Promise<Error>((resolve) => out.once('error', resolve))).toMatchObject({
      reason: 'spawn',
    });
    expect(file.destroyed).toBe(true);
  });

  test('an abort kills ffmpeg and fails the output', async () => {
    const controller = new AbortController();
    const { out, processes } = decode(new Readable({ read: () => undefined }), {
      signal: controller.signal,
    });
    const failed = new Promise<Error>((resolve) => out.once('error', resolve));
    controller.abort();
    expect(await failed).toMatchObject({ name: 'FfmpegError', reason: 'aborted' });
    await reaped(processes); // killed by the abort, not by the test
    expect(processes.pids()).toEqual([]);
  });
});
