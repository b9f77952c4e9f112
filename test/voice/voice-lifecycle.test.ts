/**
 * Joining, leaving, rejoining, destroying and recovering, with the real @discordjs/voice against
 * the fake voice server. An uncaught ERR_SOCKET_DGRAM_NOT_RUNNING from a destroy would fail the
 * run (vitest reports uncaught exceptions as errors).
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import type { TtsClient } from '../../src/tts/index.ts';
import type { VoiceManager } from '../../src/voice/index.ts';
import { type Emulator, startEmulator } from '../../tools/emulator/index.ts';
import {
  type FakeVoiceServer,
  startFakeVoiceServer,
  trustFakeVoiceCertificate,
  VoiceCloseCode,
} from '../fake-discord/voice/index.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { clientsFor, sentence, TIME_SCALE } from '../tts/emulated.ts';
import {
  CHANNEL_ID,
  eventually,
  newGuildId,
  newManager,
  OTHER_CHANNEL_ID,
  procExists,
  speak,
  target,
  testProcesses,
} from './support.ts';

let server: FakeVoiceServer;
let emulator: Emulator;
let client: TtsClient;
const managers: VoiceManager[] = [];

function manager(overrides: Parameters<typeof newManager>[0] = {}) {
  const made = newManager(overrides);
  managers.push(made.manager);
  return made;
}

const connectionsOf = (guildId: string) =>
  server.connections().filter((connection) => connection.guildId === guildId);

beforeAll(async () => {
  await trustFakeVoiceCertificate();
  server = await startFakeVoiceServer({ heartbeatIntervalMs: 500 });
  emulator = await startEmulator({ synth: 'tone', timeScale: TIME_SCALE, generationMs: () => 100 });
  client = clientsFor(emulator).clients.forKey(emulator.users[0]?.apiKey ?? '');
});

afterEach(async () => {
  for (const made of managers.splice(0)) await made.destroy();
  expect(testProcesses.pids()).toEqual([]);
  await eventually('no voice websocket remains', () => server.connections().length === 0);
});

afterAll(async () => {
  await server?.close();
  await emulator?.close();
});

describe('joining and leaving', () => {
  test('leave then an immediate rejoin: one fresh connection that plays', async () => {
    const guildId = newGuildId();
    const { manager: voice } = manager();
    await voice.join(target(server, guildId));
    const first = connectionsOf(guildId)[0]?.sessionId;
    const leaving = voice.leave(guildId);
    expect(voice.channelOf(guildId)).toBeUndefined();
    await voice.join(target(server, guildId));
    expect(await leaving).toBe(true);
    await eventually('one connection', () => connectionsOf(guildId).length === 1);
    const spoken = speak(voice, guildId, client, 'a', sentence(30));
    expect(await spoken.ended).toMatchObject({ state: 'played' });
    expect(connectionsOf(guildId)).toHaveLength(1);
    expect(first).toBeDefined();
    expect(await voice.leave(guildId)).toBe(true);
    expect(await voice.leave(guildId)).toBe(false);
    await eventually('no connection', () => connectionsOf(guildId).length === 0);
  });

  test.each([
    ['in the same turn as the join', 0],
    ['a few milliseconds into the join', 5],
    ['20 ms into the join', 20],
  ])('leaving %s neither crashes nor leaves a connection', async (_, delayMs) => {
    const guildId = newGuildId();
    const { manager: voice } = manager();
    const joining = voice.join(target(server, guildId)).then(
      () => 'joined',
      (error: Error) => error.message,
    );
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    await voice.leave(guildId);
    // Either the join was cut short, or it had finished and the leave undid it.
    const outcome = await joining;
    expect(['joined', 'left the voice channel while joining']).toContain(outcome);
    if (delayMs === 0) expect(outcome).not.toBe('joined');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(voice.channelOf(guildId)).toBeUndefined();
    await eventually('no connection', () => connectionsOf(guildId).length === 0);
    await voice.join(target(server, guildId));
    expect(voice.channelOf(guildId)).toBe(CHANNEL_ID);
  });

  test('a second join moves to the other channel on the same connection', async () => {
    const guildId = newGuildId();
    const { manager: voice } = manager();
    await voice.join(target(server, guildId));
    await voice.join(target(server, guildId, OTHER_CHANNEL_ID));
    expect(voice.channelOf(guildId)).toBe(OTHER_CHANNEL_ID);
    await eventually('one connection in the new channel', () => {
      const open = connectionsOf(guildId);
      return open.length === 1 && open[0]?.channelId === OTHER_CHANNEL_ID;
    });
  });

  test('destroy mid-playback: the item is cancelled, ffmpeg reaped, the connection closed', async () => {
    const guildId = newGuildId();
    const { manager: voice, notices } = manager();
    await voice.join(target(server, guildId));
    const spoken = speak(voice, guildId, client, 'a', sentence(800));
    await eventually('audio arrives', () => server.received(guildId).durationMs > 300, 20_000);
    const pids = testProcesses.pids();
    expect(pids.length).toBeGreaterThan(0);
    await voice.destroy();
    expect(await spoken.ended).toEqual({ state: 'cancelled' });
    expect(testProcesses.pids()).toEqual([]);
    expect(pids.filter(procExists)).toEqual([]);
    await eventually('no connection', () => connectionsOf(guildId).length === 0);
    expect(notices).toEqual([]);
  });
});

describe('voice state that stays true', () => {
  test('a 4014 close without a move gives up after the timeout, tells the channel, and /join works again', async () => {
    const guildId = newGuildId();
    const { manager: voice, notices } = manager();
    await voice.join(target(server, guildId));
    const queued = speak(voice, guildId, client, 'a', sentence(800));
    server.dropConnections(guildId, VoiceCloseCode.Disconnected);
    expect(await queued.ended).toEqual({ state: 'cancelled' });
    expect(voice.channelOf(guildId)).toBeUndefined();
    expect(notices).toEqual([
      {
        guildId,
        textChannelId: target(server, guildId).textChannelId,
        text: expect.stringMatching(/Lost the voice connection.*disconnected/),
      },
    ]);
    await voice.join(target(server, guildId));
    expect(await speak(voice, guildId, client, 'a', sentence(30)).ended).toMatchObject({
      state: 'played',
    });
  });

  test.each([
    ['4021 (rate limited)', VoiceCloseCode.RateLimited, /rate-limited.*4021/],
    ['4022 (call terminated)', VoiceCloseCode.CallTerminated, /ended the call.*4022/],
  ])(
    'a %s close ends the session once, told to the channel, never rejoined',
    async (_, code, said) => {
      const guildId = newGuildId();
      const { manager: voice, notices } = manager();
      // Every session the voice backend opens for the guild: a rejoin opens one more.
      const opened: string[] = [];
      const open = server.open.bind(server);
      server.open = (info) => {
        if (info.guildId === guildId) opened.push(info.sessionId);
        return open(info);
      };
      try {
        await voice.join(target(server, guildId));
        expect(opened).toHaveLength(1);
        const queued = speak(voice, guildId, client, 'a', sentence(800));
        server.dropConnections(guildId, code);
        expect(await queued.ended).toEqual({ state: 'cancelled' });
        expect(voice.channelOf(guildId)).toBeUndefined();
        await eventually('no connection', () => connectionsOf(guildId).length === 0);
        // Long enough for the library's immediate rejoin, and for the first of ours (5 s apart).
        await new Promise((resolve) => setTimeout(resolve, 1000));
        expect(opened).toHaveLength(1);
        expect(notices).toEqual([
          {
            guildId,
            textChannelId: target(server, guildId).textChannelId,
            text: expect.stringMatching(said),
          },
        ]);
      } finally {
        server.open = open;
      }
    },
  );

  test('a transient close (4015) resumes and the session stays', async () => {
    const guildId = newGuildId();
    const { manager: voice, notices } = manager();
    await voice.join(target(server, guildId));
    server.dropConnections(guildId);
    await eventually('resumed', () => connectionsOf(guildId)[0]?.resumed === true);
    expect(await speak(voice, guildId, client, 'a', sentence(30)).ended).toMatchObject({
      state: 'played',
    });
    expect(voice.channelOf(guildId)).toBe(CHANNEL_ID);
    expect(notices).toEqual([]);
  });

  test('the bot disconnected by someone: cleaned up at once, and an old leave echo during a join is ignored', async () => {
    const guildId = newGuildId();
    const { manager: voice, notices } = manager();
    const joining = voice.join(target(server, guildId));
    voice.botVoiceStateChanged(guildId, null); // the echo of an earlier leave
    await joining;
    expect(voice.channelOf(guildId)).toBe(CHANNEL_ID);
    voice.botVoiceStateChanged(guildId, OTHER_CHANNEL_ID); // moved by a moderator
    expect(voice.channelOf(guildId)).toBe(OTHER_CHANNEL_ID);
    voice.botVoiceStateChanged(guildId, null);
    expect(voice.channelOf(guildId)).toBeUndefined();
    expect(notices.map((notice) => notice.text)).toEqual([
      expect.stringMatching(/disconnected from <#300000000000000010>/),
    ]);
    await eventually('no connection', () => connectionsOf(guildId).length === 0);
  });

  test('leaves after the idle time with nothing queued, and says so', async () => {
    const clock = new FakeClock();
    const guildId = newGuildId();
    const { manager: voice, notices } = manager({ clock, idleMs: 120_000, readyTimeoutMs: 5000 });
    await voice.join(target(server, guildId));
    await clock.advance(119_000);
    expect(voice.channelOf(guildId)).toBe(CHANNEL_ID);
    await clock.advance(1000);
    await eventually('left', () => voice.channelOf(guildId) === undefined);
    expect(notices.map((notice) => notice.text)).toEqual([
      expect.stringMatching(/Left <#300000000000000009> after 2 min with nothing to say/),
    ]);
    await eventually('no connection', () => connectionsOf(guildId).length === 0);
  });
});
