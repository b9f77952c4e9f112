import {
  type AudioPlayer,
  AudioPlayerStatus,
  createAudioPlayer,
  createAudioResource,
  entersState,
  joinVoiceChannel,
  StreamType,
  type VoiceConnection,
  VoiceConnectionStatus,
} from '@discordjs/voice';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import { systemClock } from '../../../src/tts/index.ts';
import {
  DEFAULT_RECONNECT_POLICY,
  guardVoiceConnection,
  VoiceLink,
} from '../../../src/voice/index.ts';
import {
  type FakeVoiceServer,
  LISTENING_MEMBER_ID,
  startFakeVoiceServer,
  trustFakeVoiceCertificate,
} from './index.ts';
import { fakeAdapterCreator, oggOpusFromWav, sineWav } from './test-client.ts';

const USER_ID = '100000000000000001';
const CHANNEL_ID = '300000000000000001';
const NO_DAVE_MEMBER_ID = '100000000000000555';
let guildCounter = 210000000000000000n;
function newGuildId(): string {
  guildCounter += 1n;
  return String(guildCounter);
}

let server: FakeVoiceServer;

async function eventually(what: string, check: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
const live: VoiceConnection[] = [];
const connectionErrors: Error[] = [];

/** A bare library connection (no send gate) to `on`'s channel, guarded like the bot's. */
function connect(guildId: string, on: FakeVoiceServer = server): VoiceConnection {
  const connection = joinVoiceChannel({
    guildId,
    channelId: CHANNEL_ID,
    adapterCreator: fakeAdapterCreator(on, { userId: USER_ID }),
  });
  guardVoiceConnection(connection);
  return connection;
}

/** {@link connect} on the shared server, its errors checked and destroyed after the test. */
function join(guildId: string): VoiceConnection {
  const connection = connect(guildId);
  connection.on('error', (error) => connectionErrors.push(error));
  live.push(connection);
  return connection;
}

/** Resolves once the library reports the DAVE group's first transition (the MLS group exists). */
function transitioned(connection: VoiceConnection): Promise<void> {
  return new Promise((resolve) => {
    const check = (): void => {
      const networking = (connection.state as { networking?: NodeJS.EventEmitter }).networking;
      networking?.once('transitioned', () => resolve());
    };
    connection.on('stateChange', check);
    check();
  });
}

/** A VoiceLink (the bot's send gate included) on `server`, not waited for; losses go to `lost`. */
async function startLink(
  guildId: string,
  lost: string[],
  readyTimeoutMs: number,
): Promise<VoiceLink> {
  const link = await VoiceLink.open(
    {
      guildId,
      channelId: CHANNEL_ID,
      adapterCreator: fakeAdapterCreator(server, { userId: USER_ID }),
    },
    {
      logger: pino({ level: 'silent' }),
      clock: systemClock,
      readyTimeoutMs,
      policy: DEFAULT_RECONNECT_POLICY,
      onLost: (why) => lost.push(why),
    },
  );
  live.push(link.connection);
  return link;
}

/** {@link startLink}, Ready and with its DAVE group formed; its connection errors are checked. */
async function openLink(guildId: string, lost: string[]): Promise<VoiceLink> {
  const link = await startLink(guildId, lost, 5000);
  link.connection.on('error', (error) => connectionErrors.push(error));
  await link.ready();
  return link;
}

/**
 * Plays a tone of `seconds` through `on` (a link, or a bare connection subscribed at once);
 * resolves with ffmpeg's exit code once encoded.
 */
function playTone(
  on: Pick<VoiceLink, 'subscribe'> | VoiceConnection,
  seconds: number,
  player: AudioPlayer = createAudioPlayer(),
): Promise<number | null> {
  on.subscribe(player);
  const tone = oggOpusFromWav(sineWav(seconds));
  player.play(createAudioResource(tone.stream, { inputType: StreamType.OggOpus }));
  return tone.exited;
}

beforeAll(async () => {
  await trustFakeVoiceCertificate();
  server = await startFakeVoiceServer({
    heartbeatIntervalMs: 500,
    dave: { require: true },
  });
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

describe('fake voice server speaking DAVE with @discordjs/voice 0.19 and davey', () => {
  test('a client that does not offer DAVE is closed with 4017, as Discord does since March 2026', async () => {
    const guildId = newGuildId();
    const sessionId = 'no-dave-session';
    const { token } = server.open({ guildId, channelId: CHANNEL_ID, userId: USER_ID, sessionId });
    const ws = new WebSocket(`wss://${server.endpoint}?v=8`);
    const code = await new Promise<number>((resolve, reject) => {
      ws.on('error', reject);
      ws.on('open', () => {
        const d = { server_id: guildId, user_id: USER_ID, session_id: sessionId, token };
        ws.send(JSON.stringify({ op: 0, d: { ...d, max_dave_protocol_version: 0 } }));
      });
      ws.on('close', (closeCode) => resolve(closeCode));
    });
    expect(code).toBe(4017);
  });

  test('with DAVE off (version 0) the transport-only path still plays: the plaintext fallback', async () => {
    const plain = await startFakeVoiceServer({ heartbeatIntervalMs: 500, dave: false });
    try {
      const guildId = newGuildId();
      const connection = connect(guildId, plain);
      live.push(connection);
      await entersState(connection, VoiceConnectionStatus.Ready, 5000);
      void playTone(connection, 0.5);
      const received = await plain.waitForAudio(guildId, { minDurationMs: 400, timeoutMs: 10_000 });
      expect(received.durationMs).toBeGreaterThan(400);
      expect(received.dave.frames).toBe(0);
      connection.destroy();
    } finally {
      await plain.close();
    }
  });

  test('a handshake that never finishes: the wait is bounded, the join fails with the reason, nothing is spoken', async () => {
    const guildId = newGuildId();
    const lost: string[] = [];
    server.delayDaveHandshake(60_000);
    try {
      const link = await startLink(guildId, lost, 3000);
      const failure = await link.ready().then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(Error);
      expect(String(failure)).toContain('could not connect to the voice channel within 3000 ms');
      expect(String((failure as Error).cause)).toContain('(DAVE) handshake did not finish');
      // Session Description came (the library calls it Ready); the group never formed.
      expect(link.connection.state.status).toBe(VoiceConnectionStatus.Ready);
      expect(server.received(guildId).dave.frames).toBe(0);
      await link.destroy();
      expect(lost).toEqual([]);
    } finally {
      server.delayDaveHandshake(0);
    }
  });

  test('op 31 and a re-add that never comes: the link pauses its player, then is lost with the reason, once', async () => {
    const guildId = newGuildId();
    const lost: string[] = [];
    const link = await startLink(guildId, lost, 3000);
    await link.ready();
    link.subscribe(createAudioPlayer());
    expect(link.audioOpen).toBe(true);
    server.injectDaveFaults({ corruptNextCommit: true });
    server.delayDaveHandshake(60_000); // the re-add after op 31 never comes in time
    try {
      server.joinMember(guildId, '100000000000000777');
      await eventually('op 31', () => server.daveStats(guildId)?.invalidCommits === 1);
      await eventually('the player paused', () => !link.audioOpen);
      await eventually('the link lost', () => lost.length > 0, 10_000);
      expect(lost).toEqual([
        'the end-to-end encryption (DAVE) session was not ready again within 3000 ms',
      ]);
      expect(server.daveStats(guildId)).toMatchObject({ invalidCommits: 1, readds: 0 });
    } finally {
      server.injectDaveFaults({ corruptNextCommit: false });
      server.delayDaveHandshake(0);
      await link.destroy();
    }
  });

  test('the library alone speaks in clear before the group exists, and the server close then fails: every harness checks it', async () => {
    const slow = await startFakeVoiceServer({ heartbeatIntervalMs: 500 });
    const guildId = newGuildId();
    slow.delayDaveHandshake(1000);
    const connection = connect(guildId, slow);
    try {
      await entersState(connection, VoiceConnectionStatus.Ready, 5000);
      // Subscribed at Ready, as the library's guide does: no DAVE group yet.
      void playTone(connection, 0.5);
      await eventually('plaintext frames', () => slow.received(guildId).dave.plaintext > 5);
      expect(slow.plaintextReport()).toHaveLength(1);
    } finally {
      connection.destroy();
      await expect(slow.close()).rejects.toThrow(/plaintext voice frames under DAVE/);
    }
  });

  test('the bot forms an MLS group with a listening member, who decrypts every frame of a 1 s tone', async () => {
    const guildId = newGuildId();
    const connection = join(guildId);
    const grouped = transitioned(connection);
    await entersState(connection, VoiceConnectionStatus.Ready, 5000);
    await grouped;

    const player = createAudioPlayer();
    const encoded = playTone(connection, 1, player);
    await entersState(player, AudioPlayerStatus.Playing, 5000);
    const received = await server.waitForAudio(guildId, { minDurationMs: 800, timeoutMs: 10_000 });
    expect(await encoded).toBe(0);

    expect(received.durationMs).toBeGreaterThan(800);
    expect(received.dave.frames).toBeGreaterThan(40);
    expect(received.dave).toEqual({
      frames: received.dave.frames,
      marked: received.dave.frames,
      decrypted: received.dave.frames,
      partial: 0,
      failed: 0,
      unheard: 0,
      plaintext: 0,
      downgraded: 0,
    });
    expect(received.rejectedPackets).toBe(0);
    expect(received.opusFrames).toHaveLength(received.dave.decrypted);
  });
  test('a group recreated (op 24, epoch 1) while the bot speaks: it rejoins the new group, every frame decrypts, none in clear', async () => {
    const guildId = newGuildId();
    const lost: string[] = [];
    const link = await openLink(guildId, lost);
    const encoded = playTone(link, 3);
    await eventually('audio before', () => server.received(guildId).dave.decrypted > 25, 10_000);
    const before = server.daveStats(guildId);
    server.recreateGroup(guildId);
    // A new group (epoch 1 again, then the bot's commit): op 29 with a transition, 23, 22.
    await eventually(
      'the new group executed',
      () =>
        server.daveStats(guildId)?.transitionsExecuted === (before?.transitionsExecuted ?? 0) + 1,
      10_000,
    );
    const atNewGroup = server.received(guildId).dave;
    const received = await server.waitForAudio(guildId, { minDurationMs: 2700, timeoutMs: 15_000 });
    expect(await encoded).toBe(0);
    await link.destroy();

    expect(server.daveStats(guildId)).toMatchObject({
      epoch: 1,
      recreations: 1,
      members: [LISTENING_MEMBER_ID],
      protocolVersion: 1,
      invalidCommits: 0,
    });
    // Frames after the new Welcome were heard and decrypted by the member in the new group.
    expect(received.dave.decrypted - atNewGroup.decrypted).toBeGreaterThan(25);
    expect(received.dave).toMatchObject({
      failed: 0,
      partial: 0,
      unheard: 0,
      plaintext: 0,
      downgraded: 0,
    });
    expect(received.dave.decrypted).toBe(received.dave.frames);
    // The pause while the session was reset cut nothing and repeated nothing.
    expect(received.durationMs).toBeGreaterThan(2850);
    expect(received.durationMs).toBeLessThan(3150);
    expect(lost).toEqual([]);
  });

  test('a member without DAVE joins (op 21 to version 0) and leaves (op 24 back to 1): plaintext flows while downgraded, then every frame decrypts again', async () => {
    const guildId = newGuildId();
    const lost: string[] = [];
    const link = await openLink(guildId, lost);
    const encoded = playTone(link, 4);
    await eventually('audio before', () => server.received(guildId).dave.decrypted > 25, 10_000);

    server.joinMemberWithoutDave(guildId, NO_DAVE_MEMBER_ID);
    await eventually('downgraded', () => server.daveStats(guildId)?.protocolVersion === 0);
    // Under version 0 the bot must keep speaking (no DAVE session to wait for), in plaintext.
    await eventually(
      'plaintext under the downgrade',
      () => server.received(guildId).dave.downgraded > 25,
      10_000,
    );
    expect(link.audioOpen).toBe(true);

    server.leaveMemberWithoutDave(guildId, NO_DAVE_MEMBER_ID);
    await eventually('upgraded', () => server.daveStats(guildId)?.protocolVersion === 1, 10_000);
    const atUpgrade = server.received(guildId).dave;
    const received = await server.waitForAudio(guildId, { minDurationMs: 3700, timeoutMs: 15_000 });
    expect(await encoded).toBe(0);
    await link.destroy();

    expect(server.daveStats(guildId)).toMatchObject({
      recreations: 1,
      members: [LISTENING_MEMBER_ID],
      protocolVersion: 1,
      invalidCommits: 0,
    });
    const after = {
      frames: received.dave.frames - atUpgrade.frames,
      decrypted: received.dave.decrypted - atUpgrade.decrypted,
      downgraded: received.dave.downgraded - atUpgrade.downgraded,
    };
    // After the upgrade every frame decrypts again (one frame prepared before the pause may
    // still leave in clear at the switch, inside the receivers' passthrough).
    expect(after.decrypted).toBeGreaterThan(25);
    expect(after.frames - after.decrypted - after.downgraded).toBe(0);
    expect(after.downgraded).toBeLessThanOrEqual(1);
    expect(received.dave).toMatchObject({ failed: 0, partial: 0, unheard: 0, plaintext: 0 });
    expect(received.dave.decrypted + received.dave.downgraded).toBe(received.dave.frames);
    expect(received.durationMs).toBeGreaterThan(3800);
    expect(received.durationMs).toBeLessThan(4200);
    expect(lost).toEqual([]);
  });
});
