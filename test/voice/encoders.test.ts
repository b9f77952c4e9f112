import { Readable } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect, test } from 'vitest';
import { FfmpegProcesses, type RawPcmInput } from '../../src/audio/index.ts';
import { ItemEncoders, PcmFormats } from '../../src/voice/encoders.ts';
import { WarmSlots } from '../../src/voice/playback.ts';
import type { SniffedAudio } from '../../src/voice/types.ts';
import { encodedTone, ffmpegChildren, sineWav } from '../audio/helpers.ts';
import { eventually } from './support.ts';

const processes = new FfmpegProcesses();

afterEach(async () => {
  await processes.killAll();
  expect(ffmpegChildren()).toEqual([]);
});

/** ItemEncoders with a log of what it started: "ffmpeg started" (an item's own) or "encoder started". */
function encoders(options: { formats?: PcmFormats; idleMs?: number } = {}) {
  const started: string[] = [];
  const logger = pino(
    { level: 'debug' },
    {
      write: (line: string) => {
        const { msg } = JSON.parse(line) as { msg: string };
        if (msg === 'ffmpeg started' || msg === 'encoder started') started.push(msg);
      },
    },
  );
  const failures: unknown[] = [];
  const items = new ItemEncoders({
    playback: { ffmpegPath: 'ffmpeg', logger, processes },
    slots: new WarmSlots(4),
    formats: options.formats ?? new PcmFormats(),
    idleMs: options.idleMs,
    logger,
    onFailed: (_id, error) => failures.push(error),
  });
  return { items, started, failures };
}

/** A source whose every address is `audio`. */
function sourceOf(audio: () => SniffedAudio) {
  return { open: async () => audio() };
}

function wav(seconds: number, rate = 24_000): () => SniffedAudio {
  return () => ({ stream: Readable.from([sineWav(seconds, rate)]), extension: 'wav' });
}

const f32: RawPcmInput = { format: 'f32le', sampleRate: 24_000, channels: 1 };
const s16: RawPcmInput = { format: 's16le', sampleRate: 24_000, channels: 1 };

/** A live stream's PCM in `raw` (24 kHz mono), `seconds` of silence. */
function live(raw: RawPcmInput, seconds: number): () => SniffedAudio {
  return () => ({
    stream: Readable.from([Buffer.alloc(seconds * 24_000 * (raw.format === 'f32le' ? 4 : 2))]),
    extension: 'pcm',
    raw,
  });
}

/** Plays item `id` to its end; how many 20 ms packets it gave. */
async function play(
  items: ItemEncoders,
  id: string,
  audio: () => SniffedAudio,
  raw?: RawPcmInput,
): Promise<number> {
  items.startAhead(id, raw);
  const speech = await items.open(
    id,
    sourceOf(audio),
    'https://audio/x',
    new AbortController().signal,
  );
  let packets = 0;
  for await (const _ of speech.resource.playStream) packets++;
  await speech.done;
  return packets;
}

describe('ItemEncoders', () => {
  test("a guild's first WAV plays through its ffmpeg started ahead; every later one through one encoder", async () => {
    const { items, started } = encoders();
    // Nothing known yet: an ffmpeg of the item's own, as ever (Ogg pages, more than 50 a second is fine).
    expect(await play(items, 'a', wav(1))).toBeGreaterThan(0);
    // …and the guild's encoder starts while it plays, in the format it had.
    expect(started).toEqual(['ffmpeg started', 'encoder started']);
    const lengths = [];
    for (const [i, seconds] of [0.6, 2, 0.4].entries()) {
      lengths.push(await play(items, `b${i}`, wav(seconds)));
    }
    expect(started).toEqual(['ffmpeg started', 'encoder started']);
    // Each item cut back to its own length: 50 packets a second, a few more at most.
    expect(lengths.map((n) => n >= 0 && n <= 3)).toEqual([false, false, false]);
    for (const [i, seconds] of [0.6, 2, 0.4].entries()) {
      expect(lengths[i]).toBeGreaterThanOrEqual(seconds * 50);
      expect(lengths[i]).toBeLessThanOrEqual(seconds * 50 + 3);
    }
    items.close(new Error('done'));
    await items.settled();
    expect(processes.pids()).toEqual([]);
  });

  test('another guild starts its encoder ahead in the format the bot saw last', async () => {
    const formats = new PcmFormats();
    const first = encoders({ formats });
    await play(first.items, 'a', wav(0.3, 22_050));
    const second = encoders({ formats });
    second.items.startAhead('x', undefined);
    expect(second.started).toEqual(['encoder started']);
    expect(await play(second.items, 'x', wav(0.5, 22_050))).toBeGreaterThanOrEqual(25);
    expect(second.started).toEqual(['encoder started']);
    for (const { items } of [first, second]) items.close(new Error('done'));
    await Promise.all([first.items.settled(), second.items.settled()]);
  });

  test('a guild that joins starts its encoder at once in the format seen lately, and it closes when idle', async () => {
    const formats = new PcmFormats();
    const fresh = encoders({ formats, idleMs: 100 });
    fresh.items.prepare();
    expect(fresh.started).toEqual([]); // nothing seen yet: nothing to start
    await play(fresh.items, 'a', wav(0.3));
    const joined = encoders({ formats, idleMs: 100 });
    joined.items.prepare();
    expect(joined.started).toEqual(['encoder started']);
    expect(await play(joined.items, 'x', wav(0.4))).toBeGreaterThanOrEqual(20);
    expect(joined.started).toEqual(['encoder started']);
    await eventually('both idle encoders closed', () => processes.pids().length === 0);
    for (const { items } of [fresh, joined]) items.close(new Error('done'));
    await Promise.all([fresh.items.settled(), joined.items.settled()]);
  });

  test('an MP3, or a WAV we do not read (24-bit), gets an ffmpeg of its own even once the encoder runs', async () => {
    const { items, started } = encoders();
    await play(items, 'a', wav(0.3));
    await play(items, 'b', wav(0.3));
    expect(started).toEqual(['ffmpeg started', 'encoder started']);
    const mp3 = await encodedTone('mp3', 'libmp3lame');
    const packets = await play(items, 'c', () => ({
      stream: Readable.from([mp3]),
      extension: 'mp3',
    }));
    expect(packets).toBeGreaterThan(100);
    const deep = await encodedTone('wav', 'pcm_s24le');
    await play(items, 'd', () => ({ stream: Readable.from([deep]), extension: 'wav' }));
    expect(started).toEqual([
      'ffmpeg started',
      'encoder started',
      'ffmpeg started',
      'ffmpeg started',
    ]);
    items.close(new Error('done'));
    await items.settled();
  });

  test('a live stream goes to the encoder in its format; another format starts another encoder', async () => {
    const { items, started } = encoders();
    expect(await play(items, 'a', live(f32, 0.5), f32)).toBeGreaterThanOrEqual(25);
    expect(await play(items, 'b', live(f32, 0.5), f32)).toBeGreaterThanOrEqual(25);
    expect(await play(items, 'c', live(s16, 0.5), s16)).toBeGreaterThanOrEqual(25);
    expect(started).toEqual(['encoder started', 'encoder started']);
    // The first one was closed when the format changed.
    await eventually('one encoder left', () => processes.pids().length === 1);
    items.close(new Error('done'));
    await items.settled();
  });

  test('an item coming in another PCM format gets its encoder ahead, not at its turn', async () => {
    const { items, started } = encoders();
    await play(items, 'a', live(f32, 0.5), f32);
    items.startAhead('b', s16);
    expect(started).toEqual(['encoder started', 'encoder started']);
    await play(items, 'b', live(s16, 0.5), s16);
    expect(started).toEqual(['encoder started', 'encoder started']);
    items.close(new Error('done'));
    await items.settled();
    expect(processes.pids()).toEqual([]);
  });

  test('an encoder with nothing to say closes on its own', async () => {
    const { items } = encoders({ idleMs: 100 });
    await play(items, 'a', wav(0.2));
    await play(items, 'b', wav(0.2));
    expect(processes.pids()).toHaveLength(1);
    await eventually('the idle encoder closed', () => processes.pids().length === 0);
    // The next item starts another.
    expect(await play(items, 'c', wav(0.3))).toBeGreaterThanOrEqual(15);
    items.close(new Error('done'));
    await items.settled();
    expect(processes.pids()).toEqual([]);
  });

  test('a skip while an item is fed cuts it; the next item plays whole on the same encoder', async () => {
    const { items, started } = encoders();
    await play(items, 'a', wav(0.2));
    const endless = new Readable({ read: () => undefined });
    endless.push(sineWav(5).subarray(0, 44 + 24_000 * 2));
    const controller = new AbortController();
    items.startAhead('b', undefined);
    const speech = await items.open(
      'b',
      sourceOf(() => ({ stream: endless, extension: 'wav' })),
      'x',
      controller.signal,
    );
    speech.resource.playStream.on('error', () => undefined);
    await new Promise((resolve) => speech.resource.playStream.once('readable', resolve));
    controller.abort(new Error('skipped'));
    await speech.done.catch(() => undefined);
    expect(endless.destroyed).toBe(true);
    expect(await play(items, 'c', wav(0.8))).toBeGreaterThanOrEqual(40);
    expect(started).toEqual(['ffmpeg started', 'encoder started']);
    items.close(new Error('done'));
    await items.settled();
  });

  test('the encoder dying fails the item it was on, which is told; the next item gets a new one', async () => {
    const { items, started, failures } = encoders();
    await play(items, 'a', wav(0.2));
    await play(items, 'b', wav(0.2));
    const endless = new Readable({ read: () => undefined });
    endless.push(sineWav(5).subarray(0, 44 + 24_000));
    items.startAhead('c', undefined);
    const speech = await items.open(
      'c',
      sourceOf(() => ({ stream: endless, extension: 'wav' })),
      'x',
      new AbortController().signal,
    );
    speech.resource.playStream.on('error', () => undefined);
    for (const pid of processes.pids()) process.kill(pid, 'SIGKILL');
    await expect(speech.done).rejects.toThrow(/killed by SIGKILL/);
    expect(failures).toHaveLength(1);
    expect(await play(items, 'd', wav(0.4))).toBeGreaterThanOrEqual(20);
    expect(started).toEqual(['ffmpeg started', 'encoder started', 'encoder started']);
    items.close(new Error('done'));
    await items.settled();
  });
});
