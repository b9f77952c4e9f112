import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  AudioPlayerStatus,
  createAudioPlayer,
  createAudioResource,
  entersState,
  joinVoiceChannel,
  StreamType,
  type VoiceConnection,
  VoiceConnectionStatus,
} from '@discordjs/voice';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import { guardVoiceConnection } from '../../../src/voice/index.ts';
import type { ChildArgs } from './early-destroy-child.ts';
import {
  type FakeVoiceServer,
  fakeVoiceCertificate,
  startFakeVoiceServer,
  trustFakeVoiceCertificate,
} from './index.ts';
import { fakeAdapterCreator, oggOpusFromWav, sineWav } from './test-client.ts';

const USER_ID = '100000000000000001';
const CHANNEL_ID = '300000000000000001';
let guildCounter = 200000000000000000n;
/** A fresh guild per test: @discordjs/voice keeps one connection per guild id process-wide. */
function newGuildId(): string {
  guildCounter += 1n;
  return String(guildCounter);
}

let server: FakeVoiceServer;
const connectionErrors: Error[] = [];
const live: VoiceConnection[] = [];

function join(guildId: string): VoiceConnection {
  const connection = joinVoiceChannel({
    guildId,
    channelId: CHANNEL_ID,
    adapterCreator: fakeAdapterCreator(server, { userId: USER_ID }),
  });
  // As the bot's VoiceLink does: the library's first keep-alive must not crash a destroy that
  // lands before it (see src/voice/udp-guard.ts).
  guardVoiceConnection(connection);
  connection.on('error', (error) => connectionErrors.push(error));
  live.push(connection);
  return connection;
}

/** Polls until `check` holds; fails with `what` after `timeoutMs`. */
async function eventually(what: string, check: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Identifies on a raw voice websocket: the Ready payload, or the close code if refused. */
function identifyRaw(
  token: string,
  ids: { guildId: string; userId: string; sessionId: string },
): Promise<{ ready: Record<string, unknown> } | { closeCode: number }> {
  const ws = new WebSocket(`wss://${server.endpoint}?v=8`);
  return new Promise((resolve, reject) => {
    ws.on('error', reject);
    ws.on('open', () => {
      const { guildId, userId, sessionId } = ids;
      const d = { server_id: guildId, user_id: userId, session_id: sessionId, token };
      ws.send(JSON.stringify({ op: 0, d: { ...d, max_dave_protocol_version: 0 } }));
    });
    ws.on('message', (data) => {
      const packet = JSON.parse(data.toString()) as { op: number; d: Record<string, unknown> };
      if (packet.op !== 2) return;
      ws.close(1000);
      resolve({ ready: packet.d });
    });
    ws.on('close', (code) => resolve({ closeCode: code }));
  });
}

beforeAll(async () => {
  await trustFakeVoiceCertificate();
  server = await startFakeVoiceServer({ heartbeatIntervalMs: 500 });
});

afterEach(() => {
  for (const connection of live.splice(0)) {
    if (connection.state.status !== VoiceConnectionStatus.Destroyed) connection.destroy();
  }
  expect(connectionErrors.splice(0)).toEqual([]);
});

afterAll(async () => {
  await server?.close();
});

describe('fake voice server with @discordjs/voice 0.19', () => {
  test('plays a 2 s Ogg/Opus tone that decodes to 2 s, then sees the connection close', async () => {
    const guildId = newGuildId();
    const connection = join(guildId);
    await entersState(connection, VoiceConnectionStatus.Ready, 5000);
    expect(server.connections()).toMatchObject([{ guildId, userId: USER_ID, query: '?v=8' }]);

    const player = createAudioPlayer();
    connection.subscribe(player);
    const tone = oggOpusFromWav(sineWav(2));
    player.play(createAudioResource(tone.stream, { inputType: StreamType.OggOpus }));
    await entersState(player, AudioPlayerStatus.Playing, 5000);
    const received = await server.waitForAudio(guildId, { minDurationMs: 1000, timeoutMs: 10_000 });
    expect(await tone.exited).toBe(0);

    expect(received.durationMs).toBeGreaterThan(1800);
    expect(received.durationMs).toBeLessThan(2200);
    expect(received.rejectedPackets).toBe(0);
    expect(received.dave).toMatchObject({ failed: 0, plaintext: 0 });
    expect(received.dave.decrypted).toBe(received.opusFrames.length);
    // The player prepares five silence frames but turns idle before dispatching the last one.
    expect(received.silenceFrames).toBeGreaterThanOrEqual(4);
    expect(received.silenceFrames).toBeLessThanOrEqual(5);
    expect(received.packets).toBe(received.opusFrames.length + received.silenceFrames);
    // One arrival time per audio frame, in order, about 20 ms apart on average.
    expect(received.arrivals).toHaveLength(received.opusFrames.length);
    const span = (received.arrivals.at(-1) ?? 0) - (received.arrivals[0] ?? 0);
    expect(span / (received.arrivals.length - 1)).toBeGreaterThan(15);
    expect(span / (received.arrivals.length - 1)).toBeLessThan(25);
    expect(received.keepAlives).toBeGreaterThanOrEqual(1);
    const ssrc = server.connections()[0]?.ssrc;
    expect(received.speaking.map(({ speaking }) => speaking)).toEqual([1, 0]);
    expect(received.speaking.every((event) => event.ssrc === ssrc)).toBe(true);
    expect(server.connections()[0]?.heartbeats).toBeGreaterThanOrEqual(1);

    connection.destroy();
    await eventually('no voice websocket remains', () => server.connections().length === 0);
  });

  test('resumes after the voice websocket drops with 4015 and keeps playing', async () => {
    const guildId = newGuildId();
    const connection = join(guildId);
    await entersState(connection, VoiceConnectionStatus.Ready, 5000);
    server.dropConnections(guildId);
    await eventually('the bot resumed', () => server.connections()[0]?.resumed === true);
    await entersState(connection, VoiceConnectionStatus.Ready, 5000);

    const player = createAudioPlayer();
    connection.subscribe(player);
    player.play(
      createAudioResource(oggOpusFromWav(sineWav(0.5)).stream, { inputType: StreamType.OggOpus }),
    );
    const received = await server.waitForAudio(guildId, { minDurationMs: 400, timeoutMs: 10_000 });
    expect(received.durationMs).toBeGreaterThan(400);
    // The DAVE handshake the drop interrupted was replayed on resume: every frame decrypted.
    expect(received.dave).toMatchObject({ failed: 0, plaintext: 0 });
    expect(received.dave.decrypted).toBe(received.opusFrames.length);
    connection.destroy();
    await eventually('no voice websocket remains', () => server.connections().length === 0);
  });

  test('a leave closes only the left session, not a quick rejoin', async () => {
    const guildId = newGuildId();
    const first = join(guildId);
    await entersState(first, VoiceConnectionStatus.Ready, 5000);
    const left = server.connections()[0];
    first.destroy(); // sends op 4 with channel_id null: the adapter calls server.close(session)
    const second = join(guildId);
    await entersState(second, VoiceConnectionStatus.Ready, 5000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(second.state.status).toBe(VoiceConnectionStatus.Ready);
    expect(server.connections()).toHaveLength(1);
    expect(server.connections()[0]?.sessionId).not.toBe(left?.sessionId);

    server.close({ guildId, sessionId: server.connections()[0]?.sessionId ?? '' });
    await entersState(second, VoiceConnectionStatus.Disconnected, 3000);
    await eventually('no voice websocket remains', () => server.connections().length === 0);
  });

  test('close with a token ends exactly that session; its token stops authenticating', async () => {
    const guildId = newGuildId();
    const ids = { guildId, channelId: CHANNEL_ID, userId: USER_ID, sessionId: 'moved' };
    const before = server.open(ids);
    const after = server.open(ids);
    server.close({ guildId, sessionId: 'moved', token: before.token });
    expect(await identifyRaw(before.token, ids)).toEqual({ closeCode: 4004 });
    expect(await identifyRaw(after.token, ids)).toMatchObject({
      ready: { ip: '127.0.0.1', modes: ['aead_aes256_gcm_rtpsize'] },
    });
    expect(await identifyRaw(after.token, { ...ids, userId: '1' })).toEqual({ closeCode: 4004 });
    server.close({ guildId, sessionId: 'moved' });
    expect(await identifyRaw(after.token, ids)).toEqual({ closeCode: 4004 });
    await eventually('no voice websocket remains', () => server.connections().length === 0);
  });

  test.each([
    ['right after joinVoiceChannel', VoiceConnectionStatus.Signalling],
    ['while connecting', VoiceConnectionStatus.Connecting],
  ])('joins and destroys %s without an uncaught exception', async (_, status) => {
    const guildId = newGuildId();
    const connection = join(guildId);
    if (status === VoiceConnectionStatus.Connecting) {
      await entersState(connection, VoiceConnectionStatus.Connecting, 5000);
    }
    connection.destroy();
    await new Promise((resolve) => setTimeout(resolve, 300));
    await eventually('no voice websocket remains', () => server.connections().length === 0);
    expect(server.received(guildId).packets).toBe(0);
  });
});

describe('destroying in the turn that created the UDP socket (child process, NODE_EXTRA_CA_CERTS)', () => {
  const run = promisify(execFile);
  const child = fileURLToPath(new URL('./early-destroy-child.ts', import.meta.url));

  async function runChild(guard: ChildArgs['guard']) {
    const guildId = newGuildId();
    const sessionId = `child-${guard}`;
    const opened = server.open({ guildId, channelId: CHANNEL_ID, userId: USER_ID, sessionId });
    const args: ChildArgs = {
      ...opened,
      guildId,
      channelId: CHANNEL_ID,
      userId: USER_ID,
      sessionId,
      guard,
    };
    const { certPath } = await fakeVoiceCertificate();
    const env = { ...process.env, NODE_EXTRA_CA_CERTS: certPath };
    try {
      const { stdout, stderr } = await run(process.execPath, [child, JSON.stringify(args)], {
        env,
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
      return { code, stdout, stderr };
    } finally {
      server.close({ guildId, sessionId });
    }
  }

  test('unguarded: @discordjs/voice 0.19.2 throws ERR_SOCKET_DGRAM_NOT_RUNNING uncaught', async () => {
    const result = await runChild('none');
    expect(result.stdout).toContain('udp socket created');
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('ERR_SOCKET_DGRAM_NOT_RUNNING');
  });

  test('an uncaughtException filter on code and VoiceUDPSocket.keepAlive contains it', async () => {
    const result = await runChild('filter');
    expect(result.stdout).toContain('ignored ERR_SOCKET_DGRAM_NOT_RUNNING');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('survived; connection destroyed');
  });

  test('deferring destroy by one setImmediate turn avoids it', async () => {
    const result = await runChild('defer');
    expect(result.stdout).toContain('udp socket created');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('survived; connection destroyed');
  });
});
