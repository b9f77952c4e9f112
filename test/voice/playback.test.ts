import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough, Readable } from 'node:stream';
import { createAudioResource, StreamType } from '@discordjs/voice';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { FfmpegError, FfmpegProcesses } from '../../src/audio/index.ts';
import { ttsSource } from '../../src/speaking/index.ts';
import {
  DEFAULT_LIMITS,
  MemoryBudgetStore,
  systemClock,
  type TtsClient,
  TtsClients,
  TtsError,
} from '../../src/tts/index.ts';
import { ItemEncoders, PcmFormats } from '../../src/voice/encoders.ts';
import { prepareSpeech, WarmSlots, whenPlayable } from '../../src/voice/playback.ts';
import { encodedTone, sineWav } from '../audio/helpers.ts';

/** Media the server hands out: real audio in two formats, and an HLS playlist pointing at a file. */
const media = new Map<string, Buffer>();
let server: Server;
let client: TtsClient;
let origin = '';
const processes = new FfmpegProcesses();

beforeAll(async () => {
  media.set('/tone.wav', sineWav(1));
  media.set('/tone.mp3', await encodedTone('mp3', 'libmp3lame'));
  media.set(
    '/playlist.wav',
    Buffer.from(
      '#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\nfile:///etc/passwd\n#EXT-X-ENDLIST\n',
    ),
  );
  server = createServer((request, response) => {
    const body = media.get(request.url ?? '');
    if (body === undefined) response.writeHead(404).end();
    else response.writeHead(200, { 'content-type': 'audio/wav' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  client = new TtsClients({
    baseUrl: `${origin}/v2`,
    media: { origins: [origin], maxBytes: 5 * 1024 * 1024, timeoutMs: 5000 },
    budgets: new MemoryBudgetStore(DEFAULT_LIMITS),
    clock: systemClock,
    requestTimeoutMs: 5000,
    maxRetries: 0,
    maxBudgetWaitMs: 1000,
    pollDeadlineMs: 1000,
    pollIntervalMs: { min: 10, max: 20 },
    voicesTtlMs: 1000,
    onBackgroundError: () => undefined,
  }).forKey('adx_playback_test_key');
});
afterAll(() => new Promise((resolve) => server.close(resolve)));
afterEach(async () => {
  await processes.killAll();
});

/**
 * Plays `path` as voice does for a guild's first item (an ffmpeg of its own started ahead, then
 * fed), recording ffmpeg's arguments.
 */
async function play(path: string) {
  const lines: { args?: string[] }[] = [];
  const logger = pino(
    { level: 'debug' },
    { write: (line: string) => lines.push(JSON.parse(line) as { args?: string[] }) },
  );
  const controller = new AbortController();
  const encoders = new ItemEncoders({
    playback: { ffmpegPath: 'ffmpeg', logger, processes },
    slots: new WarmSlots(1),
    formats: new PcmFormats(),
    logger,
    onFailed: () => undefined,
  });
  encoders.startAhead('item', undefined);
  // The source /say builds: the TTS client's media checks, then the format sniffed from the bytes.
  const source = ttsSource(client, { text: 'unused', voiceId: 'unused', model: 'base' });
  const fed = encoders.open('item', source, `${origin}${path}`, controller.signal);
  const args = () => lines.find((line) => line.args !== undefined)?.args ?? [];
  return { encoders, fed, args, controller };
}

test.each([['/tone.wav'], ['/tone.mp3']])(
  '%s plays through an ffmpeg that may run only the pipe protocol and plain audio demuxers',
  async (path) => {
    const { fed, args } = await play(path);
    const speech = await fed;
    let bytes = 0;
    for await (const packet of speech.resource.playStream) bytes += (packet as Buffer).length;
    await speech.done;
    expect(bytes).toBeGreaterThan(0);
    const input = args().indexOf('-i');
    expect(args().slice(input - 4, input)).toEqual([
      '-protocol_whitelist',
      'pipe',
      '-format_whitelist',
      'wav,mp3,ogg,flac,mov,aac,matroska,aiff',
    ]);
  },
);

test('bytes that are not audio (a playlist naming a local file) never reach ffmpeg', async () => {
  const { fed, encoders } = await play('/playlist.wav');
  const error = await fed.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(TtsError);
  expect(error).toMatchObject({ kind: 'malformed_response' });
  // The ffmpeg started ahead for it is gone without being fed.
  await encoders.settled();
  expect(processes.pids()).toEqual([]);
});

test('a playlist fed straight to ffmpeg is refused by ffmpeg itself: its demuxer is not allowed', async () => {
  const controller = new AbortController();
  const prepared = prepareSpeech(
    { ffmpegPath: 'ffmpeg', logger: pino({ level: 'silent' }), processes },
    controller.signal,
  );
  prepared.transcode.feed(Readable.from([media.get('/playlist.wav') ?? Buffer.alloc(0)]));
  const error = await prepared.transcode.done.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(FfmpegError);
  expect(String((error as FfmpegError).stderr)).toMatch(/not on whitelist/);
});

describe('WarmSlots', () => {
  test.each([
    [0, ['take'], [false]],
    [1, ['take', 'take'], [true, false]],
    [2, ['take', 'take', 'take', 'release', 'take'], [true, true, false, null, true]],
    [1, ['release', 'take', 'take'], [null, true, false]],
  ] as const)('max %i: %j → %j', (max, steps, expected) => {
    const slots = new WarmSlots(max);
    const got = steps.map((step) => {
      if (step === 'take') return slots.tryTake();
      slots.release();
      return null;
    });
    expect(got).toEqual(expected);
    expect(slots.used).toBeLessThanOrEqual(max);
  });
});

describe('whenPlayable', () => {
  test('false for a stream that ends without a packet', async () => {
    const input = new PassThrough();
    const resource = createAudioResource(input, { inputType: StreamType.Opus });
    const playable = whenPlayable(resource);
    input.end();
    await expect(playable).resolves.toBe(false);
  });

  test('true once a packet is there', async () => {
    const input = new PassThrough({ objectMode: true });
    const resource = createAudioResource(input, { inputType: StreamType.Opus });
    const playable = whenPlayable(resource);
    input.write(Buffer.from([0xf8, 0xff, 0xfe]));
    await expect(playable).resolves.toBe(true);
  });

  test('with a start buffer, true only once that many packets are there', async () => {
    const input = new PassThrough({ objectMode: true });
    const resource = createAudioResource(input, { inputType: StreamType.Opus });
    let settled: boolean | undefined;
    const playable = whenPlayable(resource, 3).then((value) => {
      settled = value;
      return value;
    });
    input.write(Buffer.from([0xf8, 0xff, 0xfe]));
    input.write(Buffer.from([0xf8, 0xff, 0xfe]));
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBeUndefined();
    input.write(Buffer.from([0xf8, 0xff, 0xfe]));
    await expect(playable).resolves.toBe(true);
    expect(resource.playStream.readableLength).toBe(3);
  });

  test('with a start buffer, fewer packets play once ffmpeg is done', async () => {
    const input = new PassThrough({ objectMode: true });
    const resource = createAudioResource(input, { inputType: StreamType.Opus });
    const done = Promise.withResolvers<void>();
    const playable = whenPlayable(resource, 10, done.promise);
    input.write(Buffer.from([0xf8, 0xff, 0xfe]));
    await new Promise((resolve) => setImmediate(resolve));
    done.resolve();
    await expect(playable).resolves.toBe(true);
  });

  test('false when the stream fails first', async () => {
    const input = new PassThrough();
    const resource = createAudioResource(input, { inputType: StreamType.Opus });
    resource.playStream.on('error', () => undefined);
    const playable = whenPlayable(resource);
    input.destroy(new Error('ffmpeg failed'));
    await expect(playable).resolves.toBe(false);
  });
});
