/**
 * Results of pending speech reach Discord without an interaction object: by editing the
 * original reply through its token, or as a channel message that pings nobody.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { PendingJournal, type PendingSpeech } from '../../src/durable/index.ts';
import { loadSecretKey } from '../../src/store/index.ts';
import { systemClock } from '../../src/tts/index.ts';
import { USER_ONE } from '../../tools/emulator/index.ts';
import { submissionCount } from '../support/api-under-test.ts';
import { startTestBot, type TestBot } from '../support/bot-harness.ts';

let t: TestBot;
beforeAll(async () => {
  t = await startTestBot();
  await t.configureKey(USER_ONE.apiKey);
});
afterAll(() => t?.stop());

const request = {
  text: 'Finished after a restart, as a message in the channel for @everyone.',
  voiceId: 'am_2riuownnf',
  model: 'base',
} as const;

/** Journals `entry` as an earlier run would have, and resumes it. */
async function resume(entry: PendingSpeech): Promise<void> {
  // The bot's own secret key (generated in its data folder), as an earlier run would have used.
  const secretKey = await loadSecretKey(undefined, t.dataDir, t.bot.services.logger);
  await new PendingJournal(t.bot.store, { secretKey, clock: systemClock }).record(entry);
  await t.bot.resumer.start();
  await t.bot.resumer.idle();
}

test('a reply whose token expired: the audio is posted in the channel, mentioning nobody', async () => {
  const client = t.bot.services.tts.forKey(USER_ONE.apiKey);
  const generationId = await client.submit(request);
  const now = Date.now();
  await resume({
    id: 'late-1',
    guildId: t.discord.guild.id,
    channelId: t.discord.guild.textChannelId,
    requesterId: t.discord.users.member.id,
    requesterName: '<@everyone>',
    output: 'file',
    request,
    reply: { applicationId: t.discord.applicationId, token: 'expired', expiresAt: now - 1 },
    generationId,
    submittedAt: now,
    recordedAt: now,
  });
  const [message] = t.discord.channelMessages(t.discord.guild.textChannelId);
  expect(message?.content).toContain('Finished after a restart');
  expect(message?.content).not.toMatch(/<@|@everyone/);
  expect(message?.attachments).toHaveLength(1);
  const posted = t.discord.requests.find(
    (r) => r.method === 'POST' && r.route.endsWith('/messages'),
  );
  expect(posted?.body).toMatchObject({ allowed_mentions: { parse: [] } });
  expect(posted?.files[0]?.data.equals(t.emulator.audioOf(generationId) ?? Buffer.alloc(0))).toBe(
    true,
  );
});

test('a live reply is edited in place: the progress line gives way to the audio', async () => {
  const handle = t.discord.slash({ user: 'member', name: 'queue' });
  await handle.waitForReply();
  const client = t.bot.services.tts.forKey(USER_ONE.apiKey);
  const generationId = await client.submit(request);
  const now = Date.now();
  await resume({
    id: 'live-1',
    guildId: t.discord.guild.id,
    channelId: t.discord.guild.textChannelId,
    requesterId: t.discord.users.member.id,
    requesterName: 'member',
    output: 'file',
    request,
    reply: {
      applicationId: t.discord.applicationId,
      token: handle.token,
      expiresAt: now + 600_000,
    },
    generationId,
    submittedAt: now,
    recordedAt: now,
  });
  const edited = handle.lastMessage();
  expect(edited?.content).toMatch(/^🔊 \*\*member\*\* · base/);
  expect(edited?.attachments).toHaveLength(1);
  expect(handle.files()[0]?.data.equals(t.emulator.audioOf(generationId) ?? Buffer.alloc(0))).toBe(
    true,
  );
});

test('a resumed request that never reached the API is submitted once, and counted for its requester', async () => {
  const memberId = t.discord.users.member.id;
  const guildId = t.discord.guild.id;
  const today = async () => (await t.bot.services.usage.days(guildId, Date.now(), Date.now()))[0];
  const before = (await today())?.members[memberId] ?? 0;
  const posts = submissionCount(t.emulator);
  const now = Date.now();
  await resume({
    id: 'unsubmitted-1',
    guildId,
    channelId: t.discord.guild.textChannelId,
    requesterId: memberId,
    requesterName: 'member',
    output: 'file',
    request,
    recordedAt: now,
  });
  expect(submissionCount(t.emulator)).toBe(posts + 1);
  expect((await today())?.members[memberId]).toBe(before + 1);
});
