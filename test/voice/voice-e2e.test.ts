/**
 * The real bot (discord.js + @discordjs/voice + ffmpeg) logged into the fake Discord with its
 * fake voice server, speaking the TTS emulator's audio: /join, /say in voice, /skip, /queue,
 * /stop, /leave, and leaving when the last member leaves.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { USER_ONE } from '../../tools/emulator/index.ts';
import { api } from '../support/api-under-test.ts';
import { startTestBot, type TestBot } from '../support/bot-harness.ts';
import { sentence } from '../tts/emulated.ts';
import { eventually, isGuildEncoder, wavDurationMs } from './support.ts';

let t: TestBot;
const EPHEMERAL = 64;

beforeAll(async () => {
  // Four items of one member below: more than the default per-member cap of 3.
  t = await startTestBot({ env: { QUEUE_MAX_PER_MEMBER: '5' } });
  await t.configureKey(USER_ONE.apiKey);
});
afterAll(async () => {
  await t?.stop();
});

const guildId = () => t.discord.guild.id;
const voiceChannel = () => t.discord.guild.voiceChannelId;
const botInVoice = () =>
  t.discord.voiceStates().find((state) => state.userId === t.discord.botUser.id)?.channelId;

function command(name: string, user = 'member', options: Record<string, string> = {}) {
  return t.discord.slash({ user, name, options });
}

async function replyOf(handle: ReturnType<typeof command>): Promise<string> {
  return (await handle.waitForReply(15_000)).content ?? '';
}

function say(text: string, user = 'member') {
  return t.discord.slash({ user, name: 'say', options: { text, output: 'voice' } });
}

/** Resolves with the reply content once it matches `pattern`. */
async function replyMatching(handle: ReturnType<typeof say>, pattern: RegExp, timeoutMs = 20_000) {
  await handle.waitFor(
    (event) => event.kind === 'edit' && pattern.test(JSON.stringify(event.data)),
    timeoutMs,
  );
  return handle.lastMessage()?.content ?? '';
}

describe('voice end to end', () => {
  test('/join refuses a member who is not in a voice channel, ephemerally', async () => {
    const handle = command('join');
    const reply = await handle.waitForReply();
    expect(reply.content).toContain('Join a voice channel first');
    expect((reply.flags ?? 0) & EPHEMERAL).toBe(EPHEMERAL);
  });

  test('/join then /say: the audio is heard with the generated duration', async () => {
    t.discord.moveMember({ userId: 'member', channelId: voiceChannel() });
    t.discord.moveMember({ userId: 'admin', channelId: voiceChannel() });
    await eventually('the bot sees the members', () => t.discord.voiceStates().length === 2);
    expect(await replyOf(command('join'))).toContain(`Joined <#${voiceChannel()}>`);
    expect(botInVoice()).toBe(voiceChannel());
    t.voiceServer.reset(guildId());
    const handle = say(sentence(50));
    const final = await replyMatching(handle, /Played/);
    expect(final).toMatch(/🔊 Played \(\d+ s\)\./);
    const id = api.spoken(t.emulator, USER_ONE.userId).at(-1) ?? '';
    const expectedMs = wavDurationMs(t.emulator.audioOf(id) ?? Buffer.alloc(0));
    const heard = await t.voiceServer.waitForAudio(guildId(), { timeoutMs: 10_000 });
    expect(Math.abs(heard.durationMs - expectedMs) / expectedMs).toBeLessThan(0.1);
    expect(heard.rejectedPackets).toBe(0);
  });

  test('never a plaintext frame: with a DAVE handshake the voice server delays by 1 s, /say right after /join is heard only encrypted', async () => {
    expect(await replyOf(command('leave'))).toBeTruthy();
    await eventually('the bot left', () => botInVoice() === undefined);
    t.voiceServer.delayDaveHandshake(1000);
    try {
      t.voiceServer.reset(guildId());
      expect(await replyOf(command('join'))).toContain(`Joined <#${voiceChannel()}>`);
      const handle = say(sentence(50));
      await replyMatching(handle, /Played/);
      const heard = await t.voiceServer.waitForAudio(guildId(), { timeoutMs: 10_000 });
      expect(heard.dave).toMatchObject({ failed: 0, plaintext: 0 });
      expect(heard.dave.decrypted).toBe(heard.opusFrames.length);
      expect(heard.durationMs).toBeGreaterThan(500);
    } finally {
      t.voiceServer.delayDaveHandshake(0);
    }
  });

  test('/skip ends only the item playing; the next one plays', async () => {
    const long = say(sentence(600)); // 36 s
    const next = say(sentence(35), 'admin');
    await replyMatching(long, /Playing now/);
    const skip = await replyOf(command('skip'));
    expect(skip).toMatch(/^⏭️ Skipped \*\*member\*\*’s/);
    expect(await replyMatching(long, /Skipped/)).toContain('⏭️ Skipped.');
    expect(await replyMatching(next, /Played/)).toMatch(/Played/);
  });

  test('/queue shows the fair order; /stop clears it and stops playing', async () => {
    // A1 lasts 12 s, so it is still playing (and A4 still outside the lookahead) when M1 comes,
    // however quickly the generations finish.
    const texts = ['A1', 'A2', 'A3', 'A4'].map(
      (label) => `${label} ${sentence(label === 'A1' ? 200 : 40)}`,
    );
    const admin: ReturnType<typeof say>[] = [];
    for (const text of texts) {
      const handle = say(text, 'admin'); // one at a time, so they are queued in this order
      admin.push(handle);
      await replyMatching(handle, /position|Playing/);
    }
    const member = say(`M1 ${sentence(40)}`);
    await replyMatching(member, /position/);
    const queue = await command('queue').waitForReply();
    expect((queue.flags ?? 0) & EPHEMERAL).toBe(EPHEMERAL);
    const order = [...(queue.content ?? '').matchAll(/“(A\d|M1) /g)].map((match) => match[1]);
    // Round-robin whatever the generation state: A2 generated early still waits, and the
    // member, who joined while A1 was up, plays right after it.
    expect(order).toEqual(['A1', 'M1', 'A2', 'A3', 'A4']);
    expect(queue.content).toMatch(/\*\*member\*\*/);
    const stop = await replyOf(command('stop'));
    expect(stop).toBe('⏹️ Stopped and cleared 5 items.');
    for (const handle of [...admin, member]) {
      expect(await replyMatching(handle, /Played|Removed/)).toMatch(/Removed from the queue/);
    }
    expect(botInVoice()).toBe(voiceChannel());
    // The items' ffmpeg are gone; the guild's encoder stays for its next item (until idle).
    await eventually('ffmpeg gone', () => t.processes.pids().every(isGuildEncoder));
    expect(t.processes.pids().length).toBeLessThanOrEqual(1);
  });

  test('the bot leaves when the last member leaves, and says so where /join was used', async () => {
    t.discord.moveMember({ userId: 'admin', channelId: null });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(botInVoice()).toBe(voiceChannel());
    t.discord.moveMember({ userId: 'member', channelId: null });
    await eventually('the bot left', () => botInVoice() === undefined);
    await eventually('no voice connection', () => t.voiceServer.connections().length === 0);
    await eventually('notice posted', () =>
      t.discord
        .channelMessages(t.discord.guild.textChannelId)
        .some((message) => /nobody is listening/.test(message.content ?? '')),
    );
  });

  test('after a server-side disconnect, /join works again; /leave leaves', async () => {
    t.discord.moveMember({ userId: 'member', channelId: voiceChannel() });
    expect(await replyOf(command('join'))).toContain('Joined');
    t.discord.disconnectBot();
    await eventually('cleaned up', () => t.bot.services.voice.channelOf(guildId()) === undefined);
    expect(await replyOf(command('join'))).toContain('Joined');
    expect(botInVoice()).toBe(voiceChannel());
    expect(await replyOf(command('leave'))).toBe(`👋 Left <#${voiceChannel()}>.`);
    await eventually('no voice connection', () => t.voiceServer.connections().length === 0);
    const after = await command('skip').waitForReply();
    expect(after.content).toContain('not in a voice channel');
  });

  // Last: the guild has no voice channel afterwards.
  test('deleting the voice channel cleans up, with nothing left behind', async () => {
    expect(await replyOf(command('join'))).toContain('Joined');
    const handle = say(sentence(600));
    await replyMatching(handle, /Playing now/);
    t.discord.deleteChannel(voiceChannel());
    expect(await replyMatching(handle, /Removed/)).toContain('Removed from the queue');
    await eventually('cleaned up', () => t.bot.services.voice.channelOf(guildId()) === undefined);
    await eventually('no voice connection', () => t.voiceServer.connections().length === 0);
    await eventually('ffmpeg gone', () => t.processes.pids().length === 0);
  });
});
