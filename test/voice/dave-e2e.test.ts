/**
 * DAVE (end-to-end encrypted voice) while things change, end to end: the real bot speaking v3
 * streams into the fake voice server, whose listening members are real davey sessions. Members
 * join and leave while the bot speaks and between items (the bot alone too), the voice websocket
 * closes (resumable, non-resumable), the bot moves, a member joins while the bot resumes, a
 * commit is invalid (op 31), a transition never completes. Each time: speech goes on, every
 * frame decrypts for the members in the group, nothing is cut or repeated, and never a plaintext
 * frame (the harness's close checks that too, for every voice test).
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DEFAULT_USERS, type EmulatorUser } from '../../tools/emulator/index.ts';
import { wavDurationMs } from '../../tools/emulator/wav.ts';
import { LISTENING_MEMBER_ID, VoiceCloseCode } from '../fake-discord/voice/index.ts';
import { startTestBot, type TestBot } from '../support/bot-harness.ts';
import { sentence } from '../tts/emulated.ts';
import { eventually } from './support.ts';

const KEY = 'adx_dave_stream_key_5e11fe';
const USER: EmulatorUser = { userId: 'user_dave', apiKey: KEY, plan: 'paid' };
const MEMBER_B = '100000000000000801';
const MEMBER_C = '100000000000000802';
const MEMBER_D = '100000000000000803';
const MEMBER_E = '100000000000000804';
let t: TestBot;

beforeAll(async () => {
  t = await startTestBot({
    api: 'v3',
    emulator: { users: [...DEFAULT_USERS, USER], streamChunkMs: 100, streamSpeed: 2 },
    env: { QUEUE_MAX_PER_MEMBER: '5' },
    discord: { guilds: [{ voiceChannels: ['Voice', 'Quiet'] }] },
  });
  await t.configureKey(KEY);
  t.discord.moveMember({ userId: 'member', channelId: t.discord.guild.voiceChannelId });
  await eventually('the bot sees the member', () => t.discord.voiceStates().length === 1);
}, 60_000);
afterAll(async () => {
  await t?.stop();
});

const guildId = () => t.discord.guild.id;
const stats = () => {
  const found = t.voiceServer.daveStats(guildId());
  if (!found) throw new Error('no DAVE group');
  return found;
};
const streams = () => t.emulator.v3.generationsOf(USER.userId).filter((g) => g.via === 'stream');

/** The duration of a generation's file, whatever its format (decoded to WAV by ffmpeg). */
function fileDurationMs(file: Buffer): number {
  const wav = execFileSync('ffmpeg', ['-v', 'error', '-i', 'pipe:0', '-f', 'wav', 'pipe:1'], {
    input: file,
  });
  return wavDurationMs(wav);
}

let said = 0;
/**
 * Says `length` characters (a text never said before), runs `during` once the members hear it,
 * and resolves with what they heard once it played, with the generated duration.
 */
async function sayAndHear(length: number, during: () => Promise<void> = async () => undefined) {
  said += 1;
  const text = `Item ${said}. ${sentence(length)}`;
  t.voiceServer.reset(guildId());
  const before = streams().length;
  const handle = t.discord.slash({
    user: 'member',
    name: 'say',
    options: { text, output: 'voice' },
  });
  await eventually(
    'the members hear the item',
    () => t.voiceServer.received(guildId()).dave.marked > 10,
    20_000,
  );
  await during();
  await handle.waitFor(
    (event) => event.kind === 'edit' && /Played|could not|Removed/.test(JSON.stringify(event)),
    60_000,
  );
  expect(handle.lastMessage()?.content ?? '').toMatch(/Played/);
  await eventually(
    'the stream completed',
    () => streams().length > before && streams().at(-1)?.status === 'COMPLETED',
    10_000,
  );
  const generation = streams().at(-1);
  const expectedMs = fileDurationMs(t.emulator.audioOf(generation?.id ?? '') ?? Buffer.alloc(0));
  const heard = await t.voiceServer.waitForAudio(guildId(), { timeoutMs: 10_000 });
  return { heard, expectedMs };
}

/** Heard in full, once: within 10 % of what was generated (Opus frames round it up). */
function expectWhole(heard: { durationMs: number }, expectedMs: number): void {
  expect(heard.durationMs / expectedMs).toBeGreaterThan(0.9);
  expect(heard.durationMs / expectedMs).toBeLessThan(1.1);
}

/** Resolves once the group executed `n` transitions in all. */
function executed(n: number): Promise<void> {
  return eventually(`${n} transitions executed`, () => stats().transitionsExecuted >= n, 10_000);
}

describe('DAVE end to end while the group and the connection change', () => {
  test('never a plaintext frame: a v3 stream right after /join, with the handshake delayed by 1 s', async () => {
    t.voiceServer.delayDaveHandshake(1000);
    try {
      const joined = await t.discord.slash({ user: 'member', name: 'join' }).waitForReply(15_000);
      expect(joined.content).toContain('Joined');
      const { heard, expectedMs } = await sayAndHear(40);
      expect(heard.dave).toMatchObject({ plaintext: 0, failed: 0, partial: 0 });
      expect(heard.dave.decrypted).toBe(heard.opusFrames.length);
      expectWhole(heard, expectedMs);
    } finally {
      t.voiceServer.delayDaveHandshake(0);
    }
  }, 60_000);

  test('members join and leave while the bot speaks: a new epoch each time, and every frame decrypts', async () => {
    const base = stats().transitionsExecuted;
    const { heard, expectedMs } = await sayAndHear(90, async () => {
      t.voiceServer.joinMember(guildId(), MEMBER_B);
      await executed(base + 1);
      t.voiceServer.joinMember(guildId(), MEMBER_C);
      await executed(base + 2);
      t.voiceServer.leaveMember(guildId(), MEMBER_B);
      await executed(base + 3);
    });
    expect(stats()).toMatchObject({ invalidCommits: 0, members: [LISTENING_MEMBER_ID, MEMBER_C] });
    expect(stats().epoch).toBe(4);
    expect(heard.dave).toMatchObject({ plaintext: 0, failed: 0 });
    expectWhole(heard, expectedMs);
  }, 60_000);

  test('between items, the bot alone (every member left), then a member back: encrypted throughout', async () => {
    const base = stats().transitionsExecuted;
    const present = t.voiceServer.membersOf(guildId());
    for (const id of present) t.voiceServer.leaveMember(guildId(), id);
    await executed(base + present.length);
    expect(stats().members).toEqual([]);
    said += 1;
    t.voiceServer.reset(guildId());
    const handle = t.discord.slash({
      user: 'member',
      name: 'say',
      options: { text: `Alone ${said}. ${sentence(40)}`, output: 'voice' },
    });
    await handle.waitFor((event) => event.kind === 'edit' && /Played/.test(JSON.stringify(event)));
    const alone = t.voiceServer.received(guildId()).dave;
    // Encrypted for a group of one: nobody hears it, and nothing leaves in clear.
    expect(alone.frames).toBeGreaterThan(50);
    expect(alone).toMatchObject({ unheard: alone.frames, plaintext: 0 });

    t.voiceServer.joinMember(guildId(), MEMBER_D);
    await executed(base + 3);
    const { heard, expectedMs } = await sayAndHear(40);
    expect(heard.dave).toMatchObject({ plaintext: 0, failed: 0, partial: 0, unheard: 0 });
    expectWhole(heard, expectedMs);
  }, 60_000);

  test('a resumable close (4015) with a member joining while the bot resumes: the replay brings the change', async () => {
    const base = stats().transitionsExecuted;
    const { heard, expectedMs } = await sayAndHear(70, async () => {
      t.voiceServer.dropConnections(guildId(), VoiceCloseCode.ServerCrashed);
      t.voiceServer.joinMember(guildId(), MEMBER_B);
      await executed(base + 1);
    });
    expect(t.voiceServer.connections().some((c) => c.guildId === guildId() && c.resumed)).toBe(
      true,
    );
    expect(stats().members).toEqual([MEMBER_D, MEMBER_B]);
    expect(heard.dave).toMatchObject({ plaintext: 0, failed: 0 });
    expectWhole(heard, expectedMs);
  }, 60_000);

  test('a non-resumable close (4006) while speaking: the bot identifies again, a new group, speech goes on', async () => {
    const ssrcs = () =>
      t.voiceServer.connections().flatMap((c) => (c.guildId === guildId() ? [c.ssrc] : []));
    const [before] = ssrcs();
    // The new session's handshake takes 500 ms, so that the window between the new session's
    // Ready and its DAVE group is wide enough that a send gate that let audio through it would
    // show plaintext frames every run (without the delay: 1 in one run, 0 in another).
    t.voiceServer.delayDaveHandshake(500);
    try {
      const { heard, expectedMs } = await sayAndHear(70, async () => {
        t.voiceServer.dropConnections(guildId(), VoiceCloseCode.SessionNoLongerValid);
        await eventually(
          'a new session and group',
          () =>
            ssrcs().some((ssrc) => ssrc !== before) &&
            t.voiceServer.daveStats(guildId())?.epoch === 1,
          10_000,
        );
      });
      expect(stats().members).toEqual([MEMBER_D, MEMBER_B]);
      expect(heard.dave).toMatchObject({ plaintext: 0, failed: 0 });
      expectWhole(heard, expectedMs);
    } finally {
      t.voiceServer.delayDaveHandshake(0);
    }
  }, 60_000);

  test('a move to another channel: a new group there, every frame decrypts', async () => {
    const quiet = t.discord.guild.channels.Quiet ?? '';
    t.discord.moveMember({ userId: 'member', channelId: quiet });
    const moved = await t.discord.slash({ user: 'member', name: 'join' }).waitForReply(15_000);
    expect(moved.content).toContain(quiet);
    await eventually('the bot is in the other channel', () =>
      t.voiceServer.connections().some((c) => c.guildId === guildId() && c.channelId === quiet),
    );
    const { heard, expectedMs } = await sayAndHear(40);
    expect(heard.dave).toMatchObject({ plaintext: 0, failed: 0, partial: 0 });
    expectWhole(heard, expectedMs);
  }, 60_000);

  test('the bot and its member dragged one at a time while it speaks (either order): the item goes on, every frame decrypts', async () => {
    const voice = t.discord.guild.voiceChannelId;
    const quiet = t.discord.guild.channels.Quiet ?? '';
    const inChannel = (channelId: string) => () =>
      t.voiceServer.connections().some((c) => c.guildId === guildId() && c.channelId === channelId);
    // The bot first, into a channel nobody is in yet (it used to leave there at once, 'alone').
    const first = await sayAndHear(80, async () => {
      t.discord.moveBot(voice);
      await eventually('the bot speaks in the other channel', inChannel(voice), 10_000);
      t.discord.moveMember({ userId: 'member', channelId: voice });
    });
    expect(first.heard.dave).toMatchObject({ plaintext: 0, failed: 0 });
    expectWhole(first.heard, first.expectedMs);
    // The member first, leaving the bot alone for a moment, then the bot after them.
    const second = await sayAndHear(80, async () => {
      t.discord.moveMember({ userId: 'member', channelId: quiet });
      t.discord.moveBot(quiet);
      await eventually('the bot speaks in the member channel', inChannel(quiet), 10_000);
    });
    expect(second.heard.dave).toMatchObject({ plaintext: 0, failed: 0 });
    expectWhole(second.heard, second.expectedMs);
    expect(t.bot.services.voice.channelOf(guildId())).toBe(quiet);
    const notices = t.discord.channelMessages(t.discord.guild.textChannelId);
    expect(notices.some((m) => /nobody is listening/.test(m.content ?? ''))).toBe(false);
  }, 60_000);

  test('an invalid commit (op 31): the bot is re-added by a member, pauses until then, no loop, nothing cut', async () => {
    const before = stats();
    // The re-add takes 500 ms, as when Discord waits for a member's commit.
    t.voiceServer.delayDaveHandshake(500);
    t.voiceServer.injectDaveFaults({ corruptNextCommit: true });
    try {
      const { heard, expectedMs } = await sayAndHear(90, async () => {
        t.voiceServer.joinMember(guildId(), MEMBER_C);
        await eventually('the bot re-added', () => stats().readds === before.readds + 1, 10_000);
        await executed(before.transitionsExecuted + 1);
      });
      expect(stats()).toMatchObject({ invalidCommits: before.invalidCommits + 1 });
      expect(heard.dave).toMatchObject({ plaintext: 0, failed: 0 });
      expectWhole(heard, expectedMs);
      // No loop: one op 31, one re-add, the same voice websocket.
      const after = await sayAndHear(40);
      expect(after.heard.dave).toMatchObject({ plaintext: 0, failed: 0, partial: 0 });
      expect(stats()).toMatchObject({
        invalidCommits: before.invalidCommits + 1,
        readds: before.readds + 1,
      });
    } finally {
      t.voiceServer.delayDaveHandshake(0);
      t.voiceServer.injectDaveFaults({ corruptNextCommit: false });
    }
  }, 60_000);

  test('a transition that never completes (no op 22): speech goes on and decrypts, nothing loops', async () => {
    const before = stats();
    t.voiceServer.injectDaveFaults({ stallTransitions: true });
    try {
      const { heard, expectedMs } = await sayAndHear(50, async () => {
        t.voiceServer.joinMember(guildId(), MEMBER_E);
        await eventually(
          'the transition announced',
          () => stats().transitionsAnnounced === before.transitionsAnnounced + 1,
        );
      });
      expect(stats()).toMatchObject({
        transitionsExecuted: before.transitionsExecuted,
        invalidCommits: before.invalidCommits,
        readds: before.readds,
      });
      expect(heard.dave).toMatchObject({ plaintext: 0, failed: 0 });
      expectWhole(heard, expectedMs);
    } finally {
      t.voiceServer.injectDaveFaults({ stallTransitions: false });
    }
  }, 60_000);
});
