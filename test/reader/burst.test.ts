/**
 * A busy chat on the spec's real limits (20 generations a minute): 120 messages from 10
 * members within one minute, short generated audio. Every message is heard (merged), in order
 * per member, within max-age, and the API never answers 429. Takes about 80 s.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { USER_ONE } from '../../tools/emulator/index.ts';
import { api } from '../support/api-under-test.ts';
import { startTestBot, type TestBot } from '../support/bot-harness.ts';
import { eventually } from '../voice/support.ts';

const MEMBERS = Array.from({ length: 10 }, (_, i) => `viewer${i}`);
const PER_MEMBER = 12;
const SPREAD_MS = 45_000;
let t: TestBot;

beforeAll(async () => {
  t = await startTestBot({
    // Real per-minute limits (the emulator's and the bot's defaults); tone audio 3 ms per character.
    emulator: { toneSecondsPerChar: 0.003, generationMs: () => 300 },
    discord: { extraUsers: MEMBERS, guilds: [{ textChannels: ['general', 'chat'] }] },
  });
  await t.configureKey(USER_ONE.apiKey);
  await t.discord
    .slash({
      user: 'admin',
      name: 'config',
      subcommand: 'read-channel add',
      options: { channel: 'chat' },
    })
    .waitForReply();
  // One voice for everyone, so members' messages merge (automatic voices split them by chatter).
  await t.discord
    .slash({ user: 'admin', name: 'config', subcommand: 'reader', options: { voices: 'default' } })
    .waitForReply();
  for (const user of ['admin', ...MEMBERS])
    t.discord.moveMember({ userId: user, channelId: t.discord.guild.voiceChannelId });
  await t.discord.slash({ user: 'admin', name: 'join' }).waitForReply(15_000);
});
afterAll(async () => {
  await t?.stop();
});

test('120 messages from 10 members in a minute: all heard, merged, in order, fresh, no 429', async () => {
  const chat = t.discord.guild.channels.chat ?? '';
  const sentAt = new Map<string, number>();
  const heardAt = new Map<string, number>();
  const heard = () =>
    api
      .heard(t.emulator)
      .map((id) => api.textOf(t.emulator, id) ?? '')
      .join(' ');
  // Notes when each message is first heard (its audio fetched for playback, or streamed whole).
  const watch = setInterval(() => {
    const spoken = heard();
    for (const text of sentAt.keys())
      if (!heardAt.has(text) && spoken.includes(text)) heardAt.set(text, Date.now());
  }, 100);
  const start = Date.now();
  for (let n = 0; n < PER_MEMBER * MEMBERS.length; n++) {
    const member = n % MEMBERS.length;
    const index = Math.floor(n / MEMBERS.length);
    const text = `viewer ${member} says message ${index} of twelve`;
    sentAt.set(text, Date.now());
    t.discord.sendMessage({ user: MEMBERS[member] ?? 'member', channelId: chat, content: text });
    await new Promise((resolve) => setTimeout(resolve, SPREAD_MS / 120));
  }
  expect(Date.now() - start).toBeLessThan(60_000);
  await eventually('every message is heard', () => heardAt.size === sentAt.size, 70_000).finally(
    () => clearInterval(watch),
  );
  const latencies = [...sentAt].map(([text, at]) => (heardAt.get(text) ?? Infinity) - at);
  const slowest = Math.max(...latencies);
  expect(slowest).toBeLessThan(60_000); // max-age, 1 minute by default
  const spoken = heard();
  for (let member = 0; member < MEMBERS.length; member++) {
    const order = [
      ...spoken.matchAll(new RegExp(`viewer ${member} says message (\\d+) `, 'g')),
    ].map((match) => Number(match[1]));
    expect(order, `viewer ${member}`).toEqual(Array.from({ length: PER_MEMBER }, (_, i) => i));
  }
  const generations = api.heard(t.emulator).length;
  // 40 before issue 30; the burst's first message, into a quiet chat, is now read at once alone.
  expect(generations).toBeLessThanOrEqual(41);
  expect(t.bot.services.reader.stats(t.discord.guild.id).droppedStale).toBe(0);
  const submits = t.emulator.counts()[api.submit];
  expect(submits?.byStatus[429]).toBeUndefined();
  for (const [endpoint, count] of Object.entries(t.emulator.counts()))
    expect(count.byStatus[429], endpoint).toBeUndefined();
  console.info(
    `burst: ${sentAt.size} messages in ${generations} generations, all heard ${((Date.now() - start) / 1000).toFixed(1)} s after the first was sent; slowest message heard after ${(slowest / 1000).toFixed(1)} s`,
  );
}, 150_000);
