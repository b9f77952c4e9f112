import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { buildDecodeArgs, decodeToPcm, FfmpegProcesses } from '../../src/audio/index.ts';

const PCM = { format: 'f32le', sampleRate: 24_000, channels: 1 } as const;

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
    // One second of a 440 Hz tone at 24 kHz mono.
    const wav = execFileSync('ffmpeg', [
      ...['-v', 'error', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=1:sample_rate=24000'],
      ...['-ac', '1', '-f', 'wav', 'pipe:1'],
    ]);
    const processes = new FfmpegProcesses();
    const out = decodeToPcm(Readable.from([wav]), {
      ffmpegPath: 'ffmpeg',
      processes,
      extension: 'wav',
      pcm: PCM,
      signal: new AbortController().signal,
    });
    const chunks: Buffer[] = [];
    for await (const chunk of out) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).length).toBe(24_000 * 4);
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
    const processes = new FfmpegProcesses();
    const out = decodeToPcm(Readable.from([mp3]), {
      ffmpegPath: 'ffmpeg',
      processes,
      extension: 'mp3',
      pcm: PCM,
      signal: new AbortController().signal,
    });
    const chunks: Buffer[] = [];
    for await (const chunk of out) chunks.push(chunk as Buffer);
    const pcm = Buffer.concat(chunks);
    expect(pcm.length % 4).toBe(0);
    const samples = Array.from({ length: pcm.length / 4 }, (_, i) => pcm.readFloatLE(i * 4));
    // The tone starts at once: no encoder delay left in front (25 ms would be heard twice).
    expect(samples.findIndex((sample) => Math.abs(sample) > 0.01)).toBeLessThanOrEqual(2);
    // One second, give or take the end's padding (under an MP3 frame, 627 samples at 24 kHz).
    expect(samples.length).toBeGreaterThanOrEqual(24_000);
    expect(samples.length).toBeLessThan(24_000 + 627);
  });

  test('the reader letting go (a skip) kills ffmpeg and lets the file go, with no error left unheard', async () => {
    const processes = new FfmpegProcesses();
    const wav = execFileSync('ffmpeg', [
      ...['-v', 'error', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=1:sample_rate=24000'],
      ...['-f', 'wav', 'pipe:1'],
    ]);
    const file = new Readable({ read: () => undefined });
    file.push(wav.subarray(0, 4096)); // a file still downloading: ffmpeg waits for more
    const out = decodeToPcm(file, {
      ffmpegPath: 'ffmpeg',
      processes,
      extension: 'wav',
      pcm: PCM,
      signal: new AbortController().signal,
    });
    const errors: unknown[] = [];
    out.on('error', (error) => errors.push(error));
    expect(processes.pids()).toHaveLength(1);
    out.destroy();
    await new Promise((resolve) => file.once('close', resolve));
    await processes.killAll(); // resolves at once when the child is already gone
    expect(processes.pids()).toEqual([]);
    expect(errors).toEqual([]);
  });

  test('ffmpeg exiting while the file still flows (EPIPE on its stdin) fails the output once, and lets the file go', async () => {
    const processes = new FfmpegProcesses();
    let sent = 0;
    // Not a WAV at all, and endless: ffmpeg gives up and its stdin closes under the writes.
    const file = new Readable({
      read() {
        sent++;
        this.push(Buffer.alloc(64 * 1024, 7));
      },
    });
    const out = decodeToPcm(file, {
      ffmpegPath: 'ffmpeg',
      processes,
      extension: 'wav',
      pcm: PCM,
      signal: new AbortController().signal,
    });
    const failed = await new Promise<Error>((resolve) => out.once('error', resolve));
    expect(failed).toMatchObject({ name: 'FfmpegError', reason: 'failed' });
    await new Promise((resolve) => setImmediate(resolve));
    expect(file.destroyed).toBe(true);
    expect(sent).toBeGreaterThan(0);
    expect(processes.pids()).toEqual([]);
  });

  test('no ffmpeg to start fails the output and lets the file go', async () => {
    const processes = new FfmpegProcesses();
    const file = new Readable({ read: () => undefined });
    const controller = new AbortController();
    const out = decodeToPcm(file, {
      ffmpegPath: '/nonexistent/ffmpeg',
      processes,
      extension: 'wav',
      pcm: PCM,
      signal: controller.signal,
    });
    expect(await new Promise<Error>((resolve) => out.once('error', resolve))).toMatchObject({
      reason: 'spawn',
    });
    expect(file.destroyed).toBe(true);
  });

  test('an abort kills ffmpeg and fails the output', async () => {
    const processes = new FfmpegProcesses();
    const controller = new AbortController();
    const out = decodeToPcm(new Readable({ read: () => undefined }), {
      ffmpegPath: 'ffmpeg',
      processes,
      extension: 'wav',
      pcm: PCM,
      signal: controller.signal,
    });
    const failed = new Promise<Error>((resolve) => out.once('error', resolve));
    controller.abort();
    expect(await failed).toMatchObject({ name: 'FfmpegError', reason: 'aborted' });
    await processes.killAll();
    expect(processes.pids()).toEqual([]);
  });
});
