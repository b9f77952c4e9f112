/**
 * Live v3 speech in a voice channel: the real VoiceManager and ffmpeg, the fake voice server,
 * and a real v3 client against the emulator's stream. PCM goes into ffmpeg as it arrives; a
 * stream that fails before its first chunk plays from the fallback's file; one that stops
 * mid-way fails its item, or with a decoder carries on from its file where it stopped.
 */
import { afterAll, afterEach, beforeAll, beforeEach, expect, test } from 'vitest';

import { decodeToPcm } from '../../src/audio/index.ts';
import { liveSource } from '../../src/speaking/index.ts';
import type { PcmDecoder } from '../../src/speaking/live-streams.ts';
import type { TtsClient } from '../../src/tts/index.ts';
import type { SpeakUpdate, VoiceManager } from '../../src/voice/index.ts';
import { type Emulator, startEmulator, USER_ONE } from '../../tools/emulator/index.ts';
import {
  type FakeVoiceServer,
  startFakeVoiceServer,
  trustFakeVoiceCertificate,
} from '../fake-discord/voice/index.ts';
import { sentence, TIME_SCALE } from '../tts/emulated.ts';
import { v3ClientsFor } from '../tts/v3-emulated.ts';
import { eventually, newGuildId, newManager, target, testProcesses } from '../voice/support.ts';

let server: FakeVoiceServer;
let emulator: Emulator;
let client: TtsClient;
const managers: VoiceManager[] = [];

beforeAll(async () => {
  await trustFakeVoiceCertificate();
  server = await startFakeVoiceServer({ heartbeatIntervalMs: 500 });
  emulator = await startEmulator({
    synth: 'tone',
    timeScale: TIME_SCALE,
    generationMs: () => 50,
    queueMs: 10,
    streamChunkMs: 100,
    streamSpeed: 4,
  });
});
beforeEach(() => {
  emulator.reset();
  client = v3ClientsFor(emulator).clients.forKey(USER_ONE.apiKey);
});
afterEach(async () => {
  for (const made of managers.splice(0)) await made.destroy();
  expect(testProcesses.pids()).toEqual([]);
});
afterAll(async () => {
  await server.close();
  await emulator.close();
});

const TERMINAL = new Set(['played', 'failed', 'skipped', 'cancelled']);

/** The bot's decoder: ffmpeg on PATH, registered with the test processes. */
const decode: PcmDecoder = (file, pcm, signal) =>
  decodeToPcm(file.stream, {
    ffmpegPath: 'ffmpeg',
    processes: testProcesses,
    extension: file.extension,
    pcm,
    signal,
  });

/** Joins a fresh guild and returns a way to speak there through a live source (`decoder`: carrying on from files). */
async function voiceGuild(decoder?: PcmDecoder) {
  const guildId = newGuildId();
  const { manager } = newManager();
  managers.push(manager);
  await manager.join(target(server, guildId));
  const speak = (text: string) => {
    const updates: SpeakUpdate[] = [];
    const submitted: string[] = [];
    const ended = Promise.withResolvers<SpeakUpdate>();
    const request = { text, voiceId: 'am_2riuownnf', model: 'base' } as const;
    const outcome = manager.speak({
      guildId,
      requesterId: 'member',
      requesterName: 'member',
      text,
      source: liveSource(
        client,
        request,
        { onSubmitted: async (id) => void submitted.push(id) },
        undefined,
        decoder,
      ),
      onUpdate: (update) => {
        updates.push(update);
        if (TERMINAL.has(update.state)) ended.resolve(update);
      },
    });
    if (!outcome.ok) throw new Error(`refused: ${outcome.reason}`);
    return { updates, submitted, ended: ended.promise, itemId: outcome.itemId };
  };
  return { guildId, manager, speak };
}

/** Seconds of audio in a 24 kHz float32 stream of `bytes`. */
const pcmMs = (bytes: number) => (bytes / 4 / 24_000) * 1000;

test('streamed speech plays from its PCM, nothing is downloaded', async () => {
  const { guildId, speak } = await voiceGuild();
  const item = speak(sentence(60));
  expect(await item.ended).toMatchObject({ state: 'played' });
  const [id] = item.submitted;
  expect(emulator.v3.generation(id ?? '')).toMatchObject({ status: 'COMPLETED', via: 'stream' });
  expect(emulator.counts()['GET /audio']).toBeUndefined();
  const { wavToStreamPcm } = await import('../../tools/emulator/index.ts');
  const expectedMs = pcmMs(wavToStreamPcm(emulator.audioOf(id ?? '') ?? Buffer.alloc(0)).length);
  const heard = await server.waitForAudio(guildId, { timeoutMs: 10_000 });
  expect(Math.abs(heard.durationMs - expectedMs) / expectedMs).toBeLessThan(0.1);
  expect(heard.rejectedPackets).toBe(0);
});

test('dropped before `started`: the fallback file plays through a fresh ffmpeg', async () => {
  const { guildId, speak } = await voiceGuild();
  emulator.fault({ kind: 'stream-drop' });
  const item = speak(sentence(50));
  expect(await item.ended).toMatchObject({ state: 'played' });
  expect(emulator.counts()['POST /v3/tts']?.byStatus).toEqual({ 200: 1 });
  expect(emulator.counts()['GET /audio']?.total).toBe(1);
  const heard = await server.waitForAudio(guildId, { timeoutMs: 10_000 });
  expect(heard.durationMs).toBeGreaterThan(1000);
});

test.each([
  ['stops mid-way', { kind: 'stream-cut', afterChunks: 3 } as const, 'network'],
  [
    'sends an `error` frame mid-way',
    { kind: 'stream-error', afterChunks: 3, message: 'engine overheated' } as const,
    'generation_failed',
  ],
])('a stream that %s fails its item after what was heard', async (_name, fault, kind) => {
  const { speak } = await voiceGuild();
  emulator.fault(fault);
  const item = speak(sentence(200));
  const end = await item.ended;
  expect(end.state).toBe('failed');
  // The stream's own typed error, not ffmpeg's or the player's echo of it.
  expect(end.state === 'failed' ? end.error : undefined).toMatchObject({ name: 'TtsError', kind });
  expect(item.updates.map((u) => u.state)).toContain('playing');
  expect(emulator.counts()['POST /v3/tts']).toBeUndefined();
});

test.each([
  // The other faults are heard in full end to end (test/voice/v3-midplay-e2e.test.ts).
  ['is cut, its generation failed', { kind: 'stream-cut', afterChunks: 3 } as const, 1],
])(
  'with a decoder, a stream that %s mid-way is heard in full, once',
  async (_name, fault, posts) => {
    const { guildId, speak } = await voiceGuild(decode);
    emulator.fault(fault);
    const item = speak(sentence(50));
    expect(await item.ended).toMatchObject({ state: 'played' });
    expect(emulator.counts()['POST /v3/tts']?.total ?? 0).toBe(posts);
    const { wavToStreamPcm } = await import('../../tools/emulator/index.ts');
    const id = item.submitted.at(-1) ?? '';
    expect(emulator.v3.generation(id)).toMatchObject({ status: 'COMPLETED' });
    const expectedMs = pcmMs(wavToStreamPcm(emulator.audioOf(id) ?? Buffer.alloc(0)).length);
    const heard = await server.waitForAudio(guildId, { timeoutMs: 10_000 });
    expect(Math.abs(heard.durationMs - expectedMs) / expectedMs).toBeLessThan(0.1);
  },
);

test('an item skipped while its stream is buffered lets the stream go', async () => {
  const { guildId, manager, speak } = await voiceGuild();
  const first = speak(sentence(300));
  // Another text: an identical one would join the first's stream.
  const second = speak(`Second. ${sentence(290)}`);
  await eventually('the second is streaming', () => second.submitted.length === 1, 10_000);
  await eventually('the first plays', () => first.updates.some((u) => u.state === 'playing'));
  manager.stop(guildId);
  expect(await second.ended).toMatchObject({ state: 'cancelled' });
  const [id] = second.submitted;
  // Hanging up does not stop the generation; the socket closes and the emulator logs it.
  await eventually(
    'the stream socket closed',
    () => (emulator.counts()['WS /v3/tts/stream']?.total ?? 0) >= 2,
    10_000,
  );
  expect(id).toMatch(/^gen_/);
});
