/**
 * VoiceManager end to end without discord.js: the real @discordjs/voice against the fake voice
 * server, real ffmpeg, and the real TTS client against the emulator.
 */
import { PassThrough, Readable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { ttsSource } from '../../src/speaking/index.ts';
import type { TtsClient } from '../../src/tts/index.ts';
import type { VoiceManager } from '../../src/voice/index.ts';
import { downloaded, type Emulator, startEmulator } from '../../tools/emulator/index.ts';
import { sineWav } from '../audio/helpers.ts';
import {
  type FakeVoiceServer,
  startFakeVoiceServer,
  trustFakeVoiceCertificate,
} from '../fake-discord/voice/index.ts';
import { clientsFor, sentence, TIME_SCALE } from '../tts/emulated.ts';
import {
  eventually,
  expectOneTerminal,
  isGuildEncoder,
  newGuildId,
  newManager,
  procExists,
  speak,
  target,
  testProcesses,
  wavDurationMs,
} from './support.ts';

let server: FakeVoiceServer;
let emulator: Emulator;
let client: TtsClient;
let generationMs = 100;
const managers: VoiceManager[] = [];

function manager(overrides: Parameters<typeof newManager>[0] = {}) {
  const made = newManager(overrides);
  managers.push(made.manager);
  return made;
}

const count = (endpoint: 'POST /v2/tts' | 'GET /v2/status') =>
  emulator.counts()[endpoint]?.total ?? 0;

beforeAll(async () => {
  await trustFakeVoiceCertificate();
  server = await startFakeVoiceServer({ heartbeatIntervalMs: 500 });
  emulator = await startEmulator({
    synth: 'tone',
    timeScale: TIME_SCALE,
    generationMs: () => generationMs,
  });
  client = clientsFor(emulator).clients.forKey(emulator.users[0]?.apiKey ?? '');
});

afterEach(async () => {
  generationMs = 100;
  emulator.clearFaults();
  for (const made of managers.splice(0)) await made.destroy();
  expect(testProcesses.pids()).toEqual([]);
  await eventually('no voice websocket remains', () => server.connections().length === 0);
});

afterAll(async () => {
  await server?.close();
  await emulator?.close();
});

describe('VoiceManager with the fake voice server and the emulator', () => {
  test('speaks two items in turn; what the server decodes lasts as long as the generated WAVs', async () => {
    const guildId = newGuildId();
    const { manager: voice } = manager();
    await voice.join(target(server, guildId));
    expect(voice.channelOf(guildId)).toBe(target(server, guildId).channelId);
    const first = speak(voice, guildId, client, 'alice', sentence(40));
    const second = speak(voice, guildId, client, 'bob', sentence(55));
    const [a, b] = await Promise.all([first.ended, second.ended]);
    expect([a?.state, b?.state, b]).toEqual(['played', 'played', expect.anything()]);
    const received = await server.waitForAudio(guildId, { minDurationMs: 5000, timeoutMs: 15_000 });

    const ids = downloaded(emulator).slice(-2);
    const wavMs = ids.map((id) => wavDurationMs(emulator.audioOf(id) ?? Buffer.alloc(0)));
    expect(wavMs[0]).toBeCloseTo(2400, -2);
    expect(wavMs[1]).toBeCloseTo(3300, -2);
    const total = (wavMs[0] ?? 0) + (wavMs[1] ?? 0);
    expect(Math.abs(received.durationMs - total) / total).toBeLessThan(0.1);
    expect(received.rejectedPackets).toBe(0);
    expect(a).toMatchObject({ state: 'played' });
    expect(b).toMatchObject({ state: 'played' });
    const played = [a, b].map((u) => (u.state === 'played' ? u.durationMs : 0));
    expect(Math.abs((played[0] ?? 0) - (wavMs[0] ?? 0)) / (wavMs[0] ?? 1)).toBeLessThan(0.1);
    expect(Math.abs((played[1] ?? 0) - (wavMs[1] ?? 0)) / (wavMs[1] ?? 1)).toBeLessThan(0.1);

    for (const spoken of [first, second]) expectOneTerminal(spoken);
    // Ready and nothing playing: it starts at once, so `ready` is never shown for it.
    expect(first.updates.map((u) => u.state)).toEqual(['generating', 'playing', 'played']);
    // The second moved from position 2 to 1 when the first started, and said so.
    expect(second.updates).toContainEqual({ state: 'generating', position: 2 });
    expect(second.updates.some((u) => 'position' in u && u.position === 1)).toBe(true);
    expect(second.updates.slice(-2).map((u) => u.state)).toEqual(['playing', 'played']);
    expect(voice.queue(guildId)).toEqual([]);
  });

  test('skip stops the item playing, kills its ffmpeg, and the next one plays', async () => {
    const guildId = newGuildId();
    const { manager: voice } = manager();
    await voice.join(target(server, guildId));
    // 48 s: far more Opus than the pipes hold, so ffmpeg is still running when skipped.
    const long = speak(voice, guildId, client, 'alice', sentence(800));
    const next = speak(voice, guildId, client, 'bob', sentence(30));
    // The poller's first status check waits for an estimate that grows with the text length.
    await eventually('the long item plays', () => long.updates.at(-1)?.state === 'playing', 20_000);
    await eventually('audio arrives', () => server.received(guildId).durationMs > 500, 10_000);
    const pids = testProcesses.pids();
    expect(pids.length).toBeGreaterThan(0);
    expect(voice.skip(guildId)).toBe(true);
    expect(await long.ended).toEqual({ state: 'skipped' });
    expect(await next.ended).toMatchObject({ state: 'played' });
    // The guild's encoder (started while the first WAV played) stays for the next items.
    const itemOwn = pids.filter((pid) => !isGuildEncoder(pid));
    expect(itemOwn.length).toBeGreaterThan(0);
    await eventually('the skipped ffmpeg is gone', () => itemOwn.every((pid) => !procExists(pid)));
    expect(server.received(guildId).durationMs).toBeLessThan(10_000);
    expect(voice.skip(guildId)).toBe(false);
  });

  test('plays requesters in round-robin order: X, then A1 A2 A3 B1 C1 plays A1 B1 C1 A2 A3', async () => {
    const guildId = newGuildId();
    const { manager: voice } = manager({ lookahead: 1 });
    await voice.join(target(server, guildId));
    generationMs = 1500; // X holds the one generation slot while the others queue up
    const submitted = count('POST /v2/tts');
    const first = { label: 'X', ...speak(voice, guildId, client, 'x', sentence(30), { speed: 2 }) };
    await eventually('X is submitted', () => count('POST /v2/tts') > submitted);
    generationMs = 100;
    const spoken = [
      ['a', 'A1'],
      ['a', 'A2'],
      ['a', 'A3'],
      ['b', 'B1'],
      ['c', 'C1'],
    ].map(([who = '', label = '']) => ({
      label,
      ...speak(voice, guildId, client, who, `${label} ${sentence(30)}`, { speed: 2 }),
    }));
    const queued = voice.queue(guildId).map((entry) => entry.text.slice(0, 2));
    expect(queued.slice(1)).toEqual(['A1', 'B1', 'C1', 'A2', 'A3']);
    const started: string[] = [];
    for (const item of [first, ...spoken]) {
      const onUpdate = item.updates.push.bind(item.updates);
      item.updates.push = (...updates) => {
        if (updates.some((u) => u.state === 'playing')) started.push(item.label);
        return onUpdate(...updates);
      };
    }
    const ends = await Promise.all([first, ...spoken].map((item) => item.ended));
    expect(ends.map((end) => end.state)).toEqual(Array(6).fill('played'));
    expect(started).toEqual(['X', 'A1', 'B1', 'C1', 'A2', 'A3']);
  });

  test('bob queues three, carol one a moment later: carol plays second, though bob’s second was generated first', async () => {
    const guildId = newGuildId();
    const { manager: voice } = manager({ lookahead: 2 });
    await voice.join(target(server, guildId));
    const started: string[] = [];
    const queue = (who: string, label: string, length = 30) => {
      const item = speak(voice, guildId, client, who, `${label} ${sentence(length)}`, { speed: 2 });
      const push = item.updates.push.bind(item.updates);
      item.updates.push = (...updates) => {
        if (updates.some((u) => u.state === 'playing')) started.push(label);
        return push(...updates);
      };
      return item;
    };
    // B1 plays for about 5 s: long enough to see B2 ready while it plays.
    const bob = [queue('bob', 'B1', 160), queue('bob', 'B2'), queue('bob', 'B3')];
    await eventually(
      'B1 plays and B2 is ready',
      () => started.includes('B1') && bob[1]?.updates.at(-1)?.state === 'ready',
      10_000,
    );
    const carol = queue('carol', 'C1');
    expect(voice.queue(guildId).map((entry) => entry.text.slice(0, 2))).toEqual([
      'B1',
      'C1',
      'B2',
      'B3',
    ]);
    const ends = await Promise.all([...bob, carol].map((item) => item.ended));
    expect(ends.map((end) => end.state)).toEqual(Array(4).fill('played'));
    expect(started).toEqual(['B1', 'C1', 'B2', 'B3']);
  });

  test('only the lookahead generates: cleared items never reach POST /tts and polling stops', async () => {
    const guildId = newGuildId();
    const { manager: voice } = manager();
    await voice.join(target(server, guildId));
    generationMs = 60_000;
    const before = count('POST /v2/tts');
    const polledBefore = count('GET /v2/status');
    const items = Array.from({ length: 5 }, (_, i) =>
      speak(voice, guildId, client, `user${i % 2}`, sentence(30 + i)),
    );
    await eventually('two submits', () => count('POST /v2/tts') - before === 2);
    await eventually('polling started', () => count('GET /v2/status') > polledBefore);
    expect(voice.queue(guildId).map((entry) => entry.state)).toEqual([
      'generating',
      'generating',
      'queued',
      'queued',
      'queued',
    ]);
    expect(voice.stop(guildId)).toBe(5);
    for (const item of items) expect(await item.ended).toEqual({ state: 'cancelled' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const polls = count('GET /v2/status');
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(count('GET /v2/status')).toBe(polls);
    expect(count('POST /v2/tts') - before).toBe(2);
    for (const item of items) expectOneTerminal(item);
  });

  test('skipping the head while it still generates aborts its generation', async () => {
    const guildId = newGuildId();
    const { manager: voice } = manager({ lookahead: 1 });
    await voice.join(target(server, guildId));
    generationMs = 60_000;
    const before = count('POST /v2/tts');
    const polls = count('GET /v2/status');
    const head = speak(voice, guildId, client, 'alice', sentence(40));
    const waiting = speak(voice, guildId, client, 'bob', sentence(30));
    await eventually('polling started', () => count('GET /v2/status') > polls);
    expect(voice.skip(guildId)).toBe(true);
    expect(await head.ended).toEqual({ state: 'skipped' });
    // The next item now generates; the skipped one is polled no more.
    await eventually('second submit', () => count('POST /v2/tts') - before === 2);
    expect(waiting.updates.at(-1)).toEqual({ state: 'generating', position: 1 });
    expect(voice.stop(guildId)).toBe(1);
  });

  test('a full queue refuses with its maximum length', async () => {
    const guildId = newGuildId();
    const { manager: voice } = manager({ maxQueueLength: 2 });
    await voice.join(target(server, guildId));
    generationMs = 60_000;
    speak(voice, guildId, client, 'a', sentence(30));
    speak(voice, guildId, client, 'b', sentence(30));
    const outcome = voice.speak({
      guildId,
      requesterId: 'c',
      requesterName: 'c',
      text: sentence(30),
      source: ttsSource(client, { text: sentence(30), voiceId: 'am_2riuownnf', model: 'base' }),
      onUpdate: () => undefined,
    });
    expect(outcome).toEqual({ ok: false, reason: 'full', maxLength: 2 });
    const elsewhere = voice.speak({
      guildId: newGuildId(),
      requesterId: 'c',
      requesterName: 'c',
      text: sentence(30),
      source: ttsSource(client, { text: sentence(30), voiceId: 'am_2riuownnf', model: 'base' }),
      onUpdate: () => undefined,
    });
    expect(elsewhere).toEqual({ ok: false, reason: 'not_connected' });
  });

  test('a media failure fails the item with the error; the next one still plays', async () => {
    const guildId = newGuildId();
    const { manager: voice } = manager();
    await voice.join(target(server, guildId));
    emulator.fault({ kind: 'media-404' });
    const broken = speak(voice, guildId, client, 'a', sentence(30));
    const fine = speak(voice, guildId, client, 'b', sentence(30));
    const end = await broken.ended;
    expect(end.state).toBe('failed');
    expect(end.state === 'failed' && String(end.error)).toMatch(/404/);
    expect(await fine.ended).toMatchObject({ state: 'played' });
  });

  test('an input that hangs ends its item, reported; no ffmpeg of its own is left', async () => {
    const guildId = newGuildId();
    const { manager: voice } = manager({ stallTimeoutMs: 500 });
    await voice.join(target(server, guildId));
    const hanging = new PassThrough();
    // The first 8 KiB of a WAV came (enough to sniff it and start ffmpeg), then no byte ever does.
    hanging.write(sineWav(1).subarray(0, 8192));
    const stalled = {
      generate: client.generate.bind(client),
      stream: async () => hanging,
    } as unknown as TtsClient;
    const stuck = speak(voice, guildId, stalled, 'a', sentence(30));
    const end = await stuck.ended;
    expect(end.state).toBe('failed');
    // Its own ffmpeg found no output, or the guild's encoder found the input sent nothing.
    expect(end.state === 'failed' && String(end.error)).toMatch(/no output|sent nothing/);
    await eventually('ffmpeg reaped', () => testProcesses.pids().every(isGuildEncoder));
    expect(hanging.destroyed).toBe(true);
  });

  test('ffmpeg for the next item starts while it generates (one, not one per item); skip kills it', async () => {
    const guildId = newGuildId();
    const { manager: voice } = manager();
    await voice.join(target(server, guildId));
    generationMs = 60_000;
    const polls = count('GET /v2/status');
    const head = speak(voice, guildId, client, 'alice', sentence(40));
    const second = speak(voice, guildId, client, 'bob', sentence(30));
    await eventually('ffmpeg waits for the head', () => testProcesses.pids().length === 1);
    await eventually('polling started', () => count('GET /v2/status') > polls);
    expect(voice.queue(guildId).map((entry) => entry.state)).toEqual(['generating', 'generating']);
    const [waiting] = testProcesses.pids();
    expect(voice.skip(guildId)).toBe(true);
    expect(await head.ended).toEqual({ state: 'skipped' });
    // The skipped item's ffmpeg dies; the new head gets its own.
    await eventually('the skipped ffmpeg is gone', () => !procExists(waiting ?? 0));
    await eventually('ffmpeg waits for the new head', () => testProcesses.pids().length === 1);
    expect(voice.stop(guildId)).toBe(1);
    expect(await second.ended).toEqual({ state: 'cancelled' });
    await eventually('no ffmpeg left', () => testProcesses.pids().length === 0);
  });

  test('audio that ends before any sound fails its item instead of starting the player; the next plays', async () => {
    const guildId = newGuildId();
    const { manager: voice } = manager();
    await voice.join(target(server, guildId));
    const silent = {
      generate: client.generate.bind(client),
      stream: async () => Readable.from([sineWav(0)]), // a WAV header with no samples
    } as unknown as TtsClient;
    const empty = speak(voice, guildId, silent, 'a', sentence(30));
    const fine = speak(voice, guildId, client, 'b', sentence(30));
    const end = await empty.ended;
    expect(end.state).toBe('failed');
    expect(end.state === 'failed' && String(end.error)).toMatch(/ended before any sound/);
    expect(empty.updates.map((u) => u.state)).toEqual(['generating', 'playing', 'failed']);
    expect(await fine.ended).toMatchObject({ state: 'played' });
  });

  test('nothing is kept per guild once it has left: leaves of guilds never joined, and join–leave cycles', async () => {
    const { manager: voice } = manager();
    for (let i = 0; i < 50; i++) expect(await voice.leave(newGuildId())).toBe(false);
    expect(voice.heldGuilds).toBe(0);
    for (let i = 0; i < 3; i++) {
      const guildId = newGuildId();
      await voice.join(target(server, guildId));
      expect(voice.heldGuilds).toBe(1);
      expect(await voice.leave(guildId)).toBe(true);
    }
    expect(voice.heldGuilds).toBe(0);
  });

  test('at most maxWaitingFfmpeg ffmpeg processes wait ahead over all guilds; the others start at their turn', async () => {
    const guilds = [newGuildId(), newGuildId(), newGuildId()];
    const { manager: voice } = manager({ maxWaitingFfmpeg: 1 });
    for (const guildId of guilds) await voice.join(target(server, guildId));
    generationMs = 60_000;
    const polls = count('GET /v2/status');
    const items = guilds.map((guildId, i) => speak(voice, guildId, client, `u${i}`, sentence(30)));
    await eventually('polling started', () => count('GET /v2/status') > polls);
    await eventually('one ffmpeg waits', () => testProcesses.pids().length === 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(testProcesses.pids()).toHaveLength(1);
    // Cancelled items give their slot back: the next ones can wait ahead again, and play.
    for (const guildId of guilds) voice.stop(guildId);
    for (const item of items) expect((await item.ended).state).toBe('cancelled');
    await eventually('no ffmpeg left', () => testProcesses.pids().length === 0);
    generationMs = 100;
    const played = guilds.map((guildId, i) => speak(voice, guildId, client, `v${i}`, sentence(30)));
    for (const item of played) expect(await item.ended).toMatchObject({ state: 'played' });
  });
});
