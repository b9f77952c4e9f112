/**
 * `/config reader priority-role` end to end: the real bot on the fake Discord, reading into the
 * fake voice server with the emulator. With chat waiting, a message from a member who holds the
 * priority role is read before older messages from others; the same member without the role
 * waits their turn. The role reaches the bot as Discord sends it, on the message's
 * `member.roles` (the bot has no GuildMembers intent, so no GUILD_MEMBER_UPDATE).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestBot, type TestBot } from '../support/bot-harness.ts';
import { chatLookups, readChatInVoice } from '../support/chat-e2e.ts';
import { eventually } from '../voice/support.ts';

let t: TestBot;
const chat = () => t.discord.guild.channels.chat ?? '';
/** Chatters of the run without the role, of the run with it, and the member who gets it. */
const BEFORE = ['amy', 'ben', 'cat'];
const AFTER = ['dan', 'eve', 'fay'];

beforeAll(async () => {
  t = await startTestBot({
    // Tone audio 5 ms per character: turns play out quickly.
    emulator: { toneSecondsPerChar: 0.005, generationMs: () => 300 },
    discord: {
      extraUsers: [...BEFORE, ...AFTER, 'vip'],
      guilds: [{ textChannels: ['general', 'chat'], roles: { VIP: [] } }],
    },
  });
  // The forecast starts from the textbook speaking rate, far slower than this tone: a long
  // max-age keeps every message of a burst from being dropped as one that could not be heard.
  await readChatInVoice(t, {
    users: ['admin', ...BEFORE, ...AFTER, 'vip'],
    reader: [{ 'max-age': '10m' }],
  });
  const set = await config('reader', { 'priority-role': 'VIP' }).waitForReply();
  expect(set.content).toContain(`<@&${t.discord.guild.roles.VIP}>`);
});
afterAll(async () => {
  await t?.stop();
});

const { config, heard } = chatLookups(() => t);

/**
 * Each of `others` posts, then `vip`, all at once: every message is waiting when the first
 * batch is taken (the reader holds the oldest a second first). Resolves with the place each
 * chatter's message was heard at, once all are heard.
 */
async function burst(others: readonly string[]): Promise<Record<string, number>> {
  // The run's chatters name it: the member's line of an earlier run is not taken for this one's.
  const line = (user: string) => `${user} has something to say, after ${others.join(' and ')}`;
  for (const user of [...others, 'vip'])
    t.discord.sendMessage({ user, channelId: chat(), content: line(user) });
  const placeOf = (user: string) => heard().findIndex((text) => text.includes(line(user)));
  await eventually(
    'every message of the burst heard',
    () => [...others, 'vip'].every((user) => placeOf(user) >= 0),
    30_000,
  );
  return Object.fromEntries([...others, 'vip'].map((user) => [user, placeOf(user)]));
}

describe('priority-role', () => {
  test('without the role a member waits behind older messages; with it, they are read first', async () => {
    const before = await burst(BEFORE);
    for (const user of BEFORE) expect(before.vip).toBeGreaterThan(before[user] ?? Infinity);

    t.discord.setRole({ user: 'vip', role: 'VIP', has: true });
    const after = await burst(AFTER);
    for (const user of AFTER) expect(after.vip).toBeLessThan(after[user] ?? -Infinity);
  }, 90_000);
});
