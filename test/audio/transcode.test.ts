import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { getPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import prism from 'prism-media';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { FfmpegError } from '../../src/audio/errors.ts';
import { oggOpusDurationMs } from '../../src/audio/ogg.ts';
import { FfmpegProcesses } from '../../src/audio/processes.ts';
import type { TranscodeLogger, TranscodeOptions } from '../../src/audio/transcode.ts';
import { startTranscode, transcodeToOpus } from '../../src/audio/transcode.ts';
import { collect, encodedTone, ffmpegChildren, sineWav, slowStream } from './helpers.ts';

const processes = new FfmpegProcesses();
const base: TranscodeOptions = { ffmpegPath: '/usr/bin/ffmpeg', processes };

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'audio-transcode-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

afterEach(async () => {
  const leftover = { registry: processes.pids(), proc: ffmpegChildren() };
  await processes.killAll();
  expect(leftover).toEqual({ registry: [], proc: [] });
});

/** Expects `done` to reject with an FfmpegError and returns it. */
async function failure(done: Promise<void>): Promise<FfmpegError> {
  const error = await done.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FfmpegError);
  return error as FfmpegError;
}

/** Records output errors so a destroyed output does not become an uncaught 'error'. */
function drain(output: Readable): { bytes: () => Buffer; error: () => unknown } {
  const parts: Buffer[] = [];
  let error: unknown;
  output.on('data', (chunk: Buffer) => parts.push(chunk));
  output.on('error', (e) => {
    error = e;
  });
  return { bytes: () => Buffer.concat(parts), error: () => error };
}

async function collectPackets(stream: Readable): Promise<Buffer[]> {
  const packets: Buffer[] = [];
  for await (const packet of stream) packets.push(packet as Buffer);
  return packets;
}

const within10Percent = (ms: number | null, expected: number): void => {
  expect(ms).not.toBeNull();
  expect(Math.abs((ms ?? 0) - expected)).toBeLessThan(expected * 0.1);
};

describe('transcodeToOpus', () => {
  test('streams a slowly arriving WAV into Ogg/Opus before the input ends', async () => {
    // 3 s at 24 kHz mono = 144 kB, sent as 60 chunks of 50 ms audio, 40 ms apart (≥ 2.4 s).
    const { stream, state } = slowStream(sineWav(3), 2400, 40);
    const { output, done, pid } = transcodeToOpus(stream, { ...base, normalize: false });
    expect(processes.pids()).toEqual([pid]);
    const parts: Buffer[] = [];
    let audioBeforeInputEnded = false;
    output.on('data', (chunk: Buffer) => {
      parts.push(chunk);
      if (!state.ended && (oggOpusDurationMs(Buffer.concat(parts)) ?? 0) > 0) {
        audioBeforeInputEnded = true;
      }
    });
    await done;
    const ogg = Buffer.concat(parts);
    expect(ogg.subarray(0, 4).toString('latin1')).toBe('OggS');
    within10Percent(oggOpusDurationMs(ogg), 3000);
    expect(state.ended).toBe(true);
    expect(audioBeforeInputEnded).toBe(true);
    expect(output.readableEnded).toBe(true);
  });

  test('ffmpeg runs at a lower priority than the bot, so starting the next one does not wait behind it', async () => {
    const transcode = startTranscode({ ...base, normalize: false });
    const pid = transcode.pid ?? 0;
    const niceness = getPriority(pid) - getPriority();
    transcode.feed(Readable.from([sineWav(0.2)]));
    await transcode.done;
    expect(niceness).toBe(10);
  });

  test('output demuxes into 20 ms Opus packets the way @discordjs/voice reads it', async () => {
    const { output, done } = transcodeToOpus(Readable.from([sineWav(3)]), {
      ...base,
      normalize: false,
    });
    const demuxer = output.pipe(new prism.opus.OggDemuxer());
    const [packets] = await Promise.all([collectPackets(demuxer), done]);
    // 3 s of 20 ms frames is 150 packets; the encoder may add one or two for its lookahead.
    expect(packets.length).toBeGreaterThanOrEqual(150);
    expect(packets.length).toBeLessThanOrEqual(153);
  });

  test.each([
    ['mp3', 'mp3', 'libmp3lame'],
    ['flac', 'flac', 'flac'],
    ['ogg vorbis', 'ogg', 'libvorbis'],
    ['ogg opus', 'ogg', 'libopus'],
  ])('transcodes %s input, normalised', async (_name, format, codec) => {
    const input = await encodedTone(format, codec);
    const { stream } = slowStream(input, 4096, 5);
    const { output, done } = transcodeToOpus(stream, base);
    const [ogg] = await Promise.all([collect(output), done]);
    expect(ogg.subarray(0, 4).toString('latin1')).toBe('OggS');
    within10Percent(oggOpusDurationMs(ogg), 3000);
  });

  test('accepts a web ReadableStream', async () => {
    const web = Readable.toWeb(Readable.from([sineWav(1)])) as ReadableStream<Uint8Array>;
    const { output, done } = transcodeToOpus(web, { ...base, normalize: false });
    const [ogg] = await Promise.all([collect(output), done]);
    within10Percent(oggOpusDurationMs(ogg), 1000);
  });

  test('cuts the audio at maxDurationMs and drops the rest of the input', async () => {
    const input = Readable.from([sineWav(6)]);
    const { output, done } = transcodeToOpus(input, {
      ...base,
      normalize: false,
      maxDurationMs: 1000,
    });
    const [ogg] = await Promise.all([collect(output), done]);
    within10Percent(oggOpusDurationMs(ogg), 1000);
    expect(input.destroyed).toBe(true);
  });

  test('garbage input fails with the ffmpeg error text', async () => {
    const { output, done } = transcodeToOpus(Readable.from([randomBytes(64 * 1024)]), base);
    const sink = drain(output);
    const error = await failure(done);
    expect(error.reason).toBe('failed');
    expect(error.exitCode).not.toBe(0);
    expect(error.stderr.length).toBeGreaterThan(0);
    expect(error.message).toContain(error.stderr.at(-1));
    expect(output.destroyed).toBe(true);
    expect(sink.error()).toBe(error);
  });

  test('a never-ending trickle is killed as stalled', async () => {
    const header = sineWav(0).subarray(0, 44);
    let sent = 0;
    const trickle = new Readable({
      read() {
        setTimeout(() => this.push(sent++ === 0 ? header : Buffer.alloc(2)), 50).unref();
      },
    });
    const started = Date.now();
    const { output, done } = transcodeToOpus(trickle, { ...base, stallTimeoutMs: 800 });
    drain(output);
    const error = await failure(done);
    expect(error.reason).toBe('stalled');
    expect(Date.now() - started).toBeGreaterThanOrEqual(700);
    expect(trickle.destroyed).toBe(true);
    expect(output.destroyed).toBe(true);
  });

  test('a reader that lags does not count as a stall', async () => {
    const { output, done } = transcodeToOpus(Readable.from([sineWav(30)]), {
      ...base,
      normalize: false,
      stallTimeoutMs: 1000,
    });
    await sleep(3000); // nobody reads: ffmpeg blocks on a full pipe
    const [ogg] = await Promise.all([collect(output), done]);
    within10Percent(oggOpusDurationMs(ogg), 30_000);
  });

  test('abort mid-stream kills ffmpeg and rejects with reason aborted', async () => {
    const controller = new AbortController();
    const { stream, state } = slowStream(sineWav(10), 2400, 40);
    const { output, done } = transcodeToOpus(stream, {
      ...base,
      normalize: false,
      signal: controller.signal,
    });
    const sink = drain(output);
    output.once('data', () => controller.abort(new Error('user skipped')));
    const error = await failure(done);
    expect(error.reason).toBe('aborted');
    expect(error.cause).toEqual(new Error('user skipped'));
    expect(state.ended).toBe(false);
    expect(stream.destroyed).toBe(true);
    expect(output.destroyed).toBe(true);
    expect(sink.error()).toBe(error);
  });

  test('an already aborted signal never leaves a process', async () => {
    const { output, done } = transcodeToOpus(Readable.from([sineWav(1)]), {
      ...base,
      signal: AbortSignal.abort(),
    });
    drain(output);
    expect((await failure(done)).reason).toBe('aborted');
  });

  test('a reader that destroys the output stops ffmpeg', async () => {
    const { stream } = slowStream(sineWav(10), 2400, 40);
    const { output, done } = transcodeToOpus(stream, { ...base, normalize: false });
    output.once('data', () => output.destroy());
    expect((await failure(done)).reason).toBe('aborted');
    expect(stream.destroyed).toBe(true);
  });

  test('an input error fails the transcode with reason input', async () => {
    const broken = new Readable({ read: () => undefined });
    broken.push(sineWav(1).subarray(0, 10_000));
    const { output, done } = transcodeToOpus(broken, { ...base, normalize: false });
    drain(output);
    setTimeout(() => broken.destroy(new Error('connection reset')), 200);
    const error = await failure(done);
    expect(error.reason).toBe('input');
    expect(error.message).toContain('connection reset');
  });

  test('a missing binary fails with reason spawn', async () => {
    const input = Readable.from([sineWav(1)]);
    const { output, done, pid } = transcodeToOpus(input, {
      ...base,
      ffmpegPath: '/nonexistent/ffmpeg',
    });
    drain(output);
    expect(pid).toBeUndefined();
    const error = await failure(done);
    expect(error.reason).toBe('spawn');
    expect(error.message).toContain('/nonexistent/ffmpeg');
    expect(input.destroyed).toBe(true);
  });

  test('an ffmpeg that ignores SIGTERM is SIGKILLed after the grace period', async () => {
    const stubborn = join(dir, 'stubborn-ffmpeg');
    await writeFile(stubborn, "#!/bin/sh\ntrap '' TERM\nexec sleep 30\n");
    await chmod(stubborn, 0o755);
    const started = Date.now();
    const { output, done, pid } = transcodeToOpus(Readable.from([sineWav(1)]), {
      ...base,
      ffmpegPath: stubborn,
      stallTimeoutMs: 300,
      killGraceMs: 500,
    });
    drain(output);
    expect((await failure(done)).reason).toBe('stalled');
    expect(Date.now() - started).toBeGreaterThanOrEqual(750);
    expect(processes.pids()).not.toContain(pid);
  });

  test('killAll stops running transcodes (bot shutdown)', async () => {
    const { stream } = slowStream(sineWav(10), 2400, 40);
    const { output, done } = transcodeToOpus(stream, { ...base, normalize: false });
    drain(output);
    await new Promise((resolve) => output.once('data', resolve));
    await processes.killAll();
    expect(processes.pids()).toEqual([]);
    const error = await failure(done);
    expect(error.reason).toBe('failed');
    expect(error.exitSignal).toBe('SIGKILL');
    expect(stream.destroyed).toBe(true);
  });

  test('logs start, kill and exit through a pino-shaped logger', async () => {
    const pinoFits: TranscodeLogger = pino({ level: 'silent' });
    expect(pinoFits).toBeDefined();
    const lines: Array<[string, string, Record<string, unknown>]> = [];
    const logger: TranscodeLogger = {
      debug: (obj, msg) => lines.push(['debug', msg, obj]),
      warn: (obj, msg) => lines.push(['warn', msg, obj]),
    };
    const controller = new AbortController();
    const { stream } = slowStream(sineWav(10), 2400, 40);
    const { output, done, pid } = transcodeToOpus(stream, {
      ...base,
      signal: controller.signal,
      logger,
    });
    drain(output);
    output.once('data', () => controller.abort());
    await failure(done);
    expect(lines.map(([level, msg]) => `${level} ${msg}`)).toEqual(
      expect.arrayContaining([
        'debug ffmpeg started',
        'warn killing ffmpeg',
        'debug ffmpeg exited',
      ]),
    );
    expect(lines.find(([, msg]) => msg === 'killing ffmpeg')?.[2]).toEqual({
      pid,
      reason: 'aborted',
    });
  });
});

describe('raw PCM input', () => {
  test('float32 24 kHz mono chunks arriving over time become Opus before the input ends', async () => {
    // 2 s of a sine as a live stream sends it: float32 LE, 24 kHz, mono, in 100 ms chunks.
    const samples = 48_000;
    const pcm = Buffer.alloc(samples * 4);
    for (let i = 0; i < samples; i++)
      pcm.writeFloatLE(0.4 * Math.sin((2 * Math.PI * 440 * i) / 24_000), i * 4);
    const { stream, state } = slowStream(pcm, 9600, 30);
    const transcode = startTranscode({
      ...base,
      normalize: false,
      rawInput: { format: 'f32le', sampleRate: 24_000, channels: 1 },
    });
    transcode.feed(stream);
    const parts: Buffer[] = [];
    let audioBeforeInputEnded = false;
    transcode.output.on('data', (chunk: Buffer) => {
      parts.push(chunk);
      if (!state.ended && (oggOpusDurationMs(Buffer.concat(parts)) ?? 0) > 0) {
        audioBeforeInputEnded = true;
      }
    });
    await transcode.done;
    within10Percent(oggOpusDurationMs(Buffer.concat(parts)), 2000);
    expect(audioBeforeInputEnded).toBe(true);
  });
});

describe('startTranscode', () => {
  test('ffmpeg started ahead waits for its input longer than the stall timeout, then transcodes it', async () => {
    const transcode = startTranscode({ ...base, stallTimeoutMs: 300 });
    expect(processes.pids()).toEqual([transcode.pid]);
    await sleep(800);
    transcode.feed(Readable.from([sineWav(2)]));
    const [ogg] = await Promise.all([collect(transcode.output), transcode.done]);
    within10Percent(oggOpusDurationMs(ogg), 2000);
    expect(() => transcode.feed(Readable.from([sineWav(1)]))).toThrow(/already has its input/);
  });

  test('aborted before any input: ffmpeg is killed, and input fed later is dropped', async () => {
    const controller = new AbortController();
    const transcode = startTranscode({ ...base, signal: controller.signal });
    drain(transcode.output);
    controller.abort(new Error('skipped while generating'));
    const error = await failure(transcode.done);
    expect(error.reason).toBe('aborted');
    const late = Readable.from([sineWav(1)]);
    transcode.feed(late);
    expect(late.destroyed).toBe(true);
  });

  test('normalised output is a level that suits speech, whatever the input level', async () => {
    const levels: number[] = [];
    for (const gain of [0.05, 0.9]) {
      const quiet = sineWav(3);
      // Scale the 16-bit samples after the 44-byte header.
      for (let i = 44; i + 1 < quiet.length; i += 2) {
        quiet.writeInt16LE(Math.round(quiet.readInt16LE(i) * gain), i);
      }
      const transcode = startTranscode(base);
      transcode.feed(Readable.from([quiet]));
      const decoded = transcode.output
        .pipe(new prism.opus.OggDemuxer())
        .pipe(new prism.opus.Decoder({ rate: 48_000, channels: 2, frameSize: 960 }));
      const [pcm] = await Promise.all([collect(decoded), transcode.done]);
      let sum = 0;
      const last = pcm.subarray(pcm.length / 2); // after the normaliser settled
      for (let i = 0; i + 1 < last.length; i += 2) sum += last.readInt16LE(i) ** 2;
      levels.push(Math.sqrt(sum / (last.length / 2)));
    }
    const [soft = 0, loud = 0] = levels;
    // The input levels differ 18x (25 dB); after normalising, less than 2x (6 dB).
    expect(loud / soft).toBeLessThan(2);
    expect(loud / soft).toBeGreaterThan(0.5);
  });
});
