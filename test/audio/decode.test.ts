import { execFileSync } from 'node:child_process';
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
