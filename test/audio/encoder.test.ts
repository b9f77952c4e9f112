import { Readable } from 'node:stream';
import OpusScript from 'opusscript';
import { afterEach, describe, expect, test } from 'vitest';
import type { RawPcmInput } from '../../src/audio/args.ts';
import {
  FLUSH_SILENCE_MS,
  filterFrames,
  flushFrames,
  packetSpan,
  SpeechEncoder,
} from '../../src/audio/encoder.ts';
import { FfmpegError } from '../../src/audio/errors.ts';
import { FfmpegProcesses } from '../../src/audio/processes.ts';
import { ffmpegChildren } from './helpers.ts';

const processes = new FfmpegProcesses();
const FORMAT = { format: 's16le', sampleRate: 24_000, channels: 1 } as const;

afterEach(async () => {
  const leftover = { registry: processes.pids(), proc: ffmpegChildren() };
  await processes.killAll();
  expect(leftover).toEqual({ registry: [], proc: [] });
});

/** Mono 16-bit PCM of a sine tone at `amplitude` (0–1). */
function tone(seconds: number, amplitude: number, rate = 24_000, frequency = 440): Buffer {
  const samples = Math.round(seconds * rate);
  const data = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) {
    const value = Math.sin((2 * Math.PI * frequency * i) / rate) * amplitude * 32767;
    data.writeInt16LE(Math.round(value), i * 2);
  }
  return data;
}

/** `bytes` in chunks of odd sizes (not whole frames), as a download delivers them. */
function chunked(bytes: Buffer, size = 4095): Readable {
  const parts: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) parts.push(bytes.subarray(at, at + size));
  return Readable.from(parts, { objectMode: false });
}

async function packetsOf(output: Readable): Promise<Buffer[]> {
  const packets: Buffer[] = [];
  for await (const packet of output) packets.push(packet as Buffer);
  return packets;
}

/** RMS level (dBFS) of each decoded 20 ms packet. */
function levels(packets: readonly Buffer[]): number[] {
  const decoder = new OpusScript(48_000, 2);
  try {
    return packets.map((packet) => {
      const pcm = decoder.decode(packet);
      let sum = 0;
      for (let i = 0; i < pcm.length; i += 2) sum += (pcm.readInt16LE(i) / 32768) ** 2;
      const rms = Math.sqrt(sum / (pcm.length / 2));
      return 20 * Math.log10(Math.max(rms, 1e-6));
    });
  } finally {
    decoder.delete();
  }
}

function encoder(options: { format?: RawPcmInput; stallTimeoutMs?: number } = {}): SpeechEncoder {
  const { format = FORMAT, stallTimeoutMs } = options;
  return new SpeechEncoder({ ffmpegPath: '/usr/bin/ffmpeg', format, processes, stallTimeoutMs });
}

describe('packetSpan', () => {
  test('maps input frames to the 20 ms packets that carry them, pre-skip included', () => {
    // 1 s at 24 kHz from the start: 50 packets, shifted by 312 samples of pre-skip, plus one.
    expect(packetSpan(0, 24_000, 24_000, 312)).toEqual({ first: 0, end: 52 });
    // Starting after 1.5 s of input: packet 75 holds its first sample (72 000 + 312).
    expect(packetSpan(36_000, 36_000 + 12_000, 24_000, 312)).toEqual({ first: 75, end: 102 });
    // 22.05 kHz input: 441 frames are one packet.
    expect(packetSpan(441, 882, 22_050, 0)).toEqual({ first: 1, end: 3 });
  });

  test('never ends before it starts', () => {
    expect(packetSpan(100, 100, 24_000, 312).end).toBeGreaterThanOrEqual(
      packetSpan(100, 100, 24_000, 312).first,
    );
  });
});

describe('flushFrames', () => {
  test('at least the flush, and the next item starts on the filter grid (two 100 ms frames)', () => {
    for (const rate of [8000, 16_000, 22_050, 24_000, 44_100, 48_000]) {
      const grid = 2 * filterFrames(rate);
      for (const fed of [0, 1, 441, 2400, 12_345, 100_000]) {
        const flush = flushFrames(fed, rate);
        expect(flush).toBeGreaterThanOrEqual(Math.round((rate * FLUSH_SILENCE_MS) / 1000));
        expect(flush).toBeLessThan(Math.round((rate * FLUSH_SILENCE_MS) / 1000) + grid);
        expect((fed + flush) % grid).toBe(0);
      }
    }
    // ffmpeg makes the filter's frame even: 2205 samples at 22.05 kHz are 2206.
    expect(filterFrames(22_050)).toBe(2206);
    expect(filterFrames(24_000)).toBe(2400);
  });
});

describe('SpeechEncoder', () => {
  test('one ffmpeg encodes item after item, each cut back to its own length', async () => {
    const encoder1 = encoder();
    const lengths = [1.0, 0.3, 2.2];
    const counts: number[] = [];
    for (const seconds of lengths) {
      const item = encoder1.encode(chunked(tone(seconds, 0.5)), new AbortController().signal);
      const packets = await packetsOf(item.output);
      await item.done;
      counts.push(packets.length);
      // Speech throughout: no packet of the silence between items, none of the next item.
      const heard = levels(packets).filter((db) => db > -40).length;
      expect(heard).toBeGreaterThanOrEqual(Math.floor(seconds * 50) - 1);
    }
    for (const [i, seconds] of lengths.entries()) {
      expect(counts[i]).toBeGreaterThanOrEqual(seconds * 50);
      expect(counts[i]).toBeLessThanOrEqual(seconds * 50 + 3);
    }
    expect(processes.pids()).toHaveLength(1);
    encoder1.close();
    await encoder1.exited;
    expect(processes.pids()).toEqual([]);
  });

  test.each([[16_000], [22_050], [44_100]])(
    'at %i Hz too, each item keeps its own length',
    async (rate) => {
      const encoder1 = encoder({ format: { format: 's16le', sampleRate: rate, channels: 1 } });
      for (const seconds of [0.7, 1.3]) {
        const item = encoder1.encode(
          chunked(tone(seconds, 0.5, rate)),
          new AbortController().signal,
        );
        const packets = await packetsOf(item.output);
        expect(packets.length).toBeGreaterThanOrEqual(seconds * 50);
        expect(packets.length).toBeLessThanOrEqual(seconds * 50 + 3);
        expect(levels(packets).filter((db) => db > -40).length).toBeGreaterThanOrEqual(
          seconds * 50 - 1,
        );
      }
      encoder1.kill();
      await encoder1.exited;
    },
  );

  test('evens loudness between a quiet item and a loud one', async () => {
    const encoder1 = encoder();
    const medians: number[] = [];
    for (const amplitude of [0.03, 0.6]) {
      const item = encoder1.encode(chunked(tone(2, amplitude)), new AbortController().signal);
      const sorted = levels(await packetsOf(item.output)).sort((a, b) => a - b);
      medians.push(sorted[Math.floor(sorted.length / 2)] ?? -120);
    }
    // 26 dB apart going in.
    expect(Math.abs((medians[0] ?? 0) - (medians[1] ?? 0))).toBeLessThan(6);
    encoder1.kill();
    await encoder1.exited;
  });

  test('an aborted item ends there and the next one plays whole', async () => {
    const encoder1 = encoder();
    const controller = new AbortController();
    const endless = new Readable({ read: () => undefined });
    endless.push(tone(1, 0.5));
    const cut = encoder1.encode(endless, controller.signal);
    cut.output.on('error', () => undefined);
    await new Promise((resolve) => cut.output.once('readable', resolve));
    controller.abort(new Error('skipped'));
    const error = await cut.done.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FfmpegError);
    expect((error as FfmpegError).reason).toBe('aborted');
    expect(endless.destroyed).toBe(true);
    const next = encoder1.encode(chunked(tone(0.6, 0.5)), new AbortController().signal);
    const packets = await packetsOf(next.output);
    expect(packets.length).toBeGreaterThanOrEqual(30);
    expect(packets.length).toBeLessThanOrEqual(33);
    encoder1.kill();
    await encoder1.exited;
  });

  test('an item skipped once all fed ends there, and its output, read by nobody, fails quietly', async () => {
    const encoder1 = encoder();
    const controller = new AbortController();
    const input = chunked(tone(1, 0.5));
    const item = encoder1.encode(input, controller.signal);
    await new Promise((resolve) => input.once('close', resolve));
    controller.abort(new Error('skipped'));
    // Killing the encoder now destroys an output with no reader: it used to throw, uncaught.
    encoder1.kill();
    const error = (await item.done.catch((e: unknown) => e)) as FfmpegError;
    expect(error.reason).toBe('aborted');
    await encoder1.exited;
  });

  test('an input that sends nothing ends its item; the encoder goes on', async () => {
    const encoder1 = encoder({ stallTimeoutMs: 200 });
    const silent = new Readable({ read: () => undefined });
    silent.push(tone(0.1, 0.5));
    const item = encoder1.encode(silent, new AbortController().signal);
    const error = (await item.done.catch((e: unknown) => e)) as FfmpegError;
    expect(error.message).toMatch(/sent nothing for 400 ms/);
    expect(silent.destroyed).toBe(true);
    const next = encoder1.encode(chunked(tone(0.4, 0.5)), new AbortController().signal);
    expect((await packetsOf(next.output)).length).toBeGreaterThanOrEqual(20);
    encoder1.kill();
    await encoder1.exited;
  });

  test('an input that pauses longer than the stall timeout is not a stalled ffmpeg', async () => {
    const encoder1 = encoder({ stallTimeoutMs: 200 });
    const paced = new Readable({ read: () => undefined });
    paced.push(tone(0.1, 0.5));
    const item = encoder1.encode(paced, new AbortController().signal);
    const packets = packetsOf(item.output);
    // 300 ms with nothing new: the filter holds what came, and ffmpeg owes nothing.
    await new Promise((resolve) => setTimeout(resolve, 300));
    paced.push(tone(0.5, 0.5));
    paced.push(null);
    expect((await packets).length).toBeGreaterThanOrEqual(30);
    await item.done;
    expect(encoder1.alive).toBe(true);
    encoder1.kill();
    await encoder1.exited;
  });

  test('an item with no samples ends at once, with no packet', async () => {
    const encoder1 = encoder();
    const item = encoder1.encode(Readable.from([], { objectMode: false }), AbortSignal.abort());
    item.output.on('error', () => undefined);
    await item.done.catch(() => undefined);
    const empty = encoder1.encode(Readable.from([Buffer.alloc(0)]), new AbortController().signal);
    expect(await packetsOf(empty.output)).toEqual([]);
    await empty.done;
    encoder1.kill();
    await encoder1.exited;
  });

  test('an input that fails fails its item only', async () => {
    const encoder1 = encoder();
    const broken = new Readable({ read: () => undefined });
    broken.push(tone(0.2, 0.5));
    const item = encoder1.encode(broken, new AbortController().signal);
    item.output.on('error', () => undefined);
    broken.destroy(new Error('connection reset'));
    const error = (await item.done.catch((e: unknown) => e)) as FfmpegError;
    expect(error.reason).toBe('input');
    const next = encoder1.encode(chunked(tone(0.4, 0.5)), new AbortController().signal);
    expect((await packetsOf(next.output)).length).toBeGreaterThanOrEqual(20);
    encoder1.kill();
    await encoder1.exited;
  });

  test('ffmpeg dying fails the item it was encoding, and the encoder is not used again', async () => {
    const encoder1 = encoder();
    const endless = new Readable({ read: () => undefined });
    endless.push(tone(0.5, 0.5));
    const item = encoder1.encode(endless, new AbortController().signal);
    item.output.on('error', () => undefined);
    const pid = processes.pids()[0];
    expect(pid).toBeDefined();
    process.kill(pid ?? 0, 'SIGKILL');
    const error = (await item.done.catch((e: unknown) => e)) as FfmpegError;
    expect(error).toBeInstanceOf(FfmpegError);
    expect(error.message).toMatch(/killed by SIGKILL/);
    expect(encoder1.usable).toBe(false);
    expect(endless.destroyed).toBe(true);
    expect(() => encoder1.encode(chunked(tone(0.1, 0.5)), new AbortController().signal)).toThrow();
    await encoder1.exited;
  });

  test('a missing ffmpeg fails the first item with a spawn error', async () => {
    const encoder1 = new SpeechEncoder({
      ffmpegPath: '/nonexistent/ffmpeg',
      format: FORMAT,
      processes,
    });
    const item = encoder1.encode(chunked(tone(0.1, 0.5)), new AbortController().signal);
    item.output.on('error', () => undefined);
    const error = (await item.done.catch((e: unknown) => e)) as FfmpegError;
    expect(error.reason).toBe('spawn');
  });
});
