/**
 * What the chat costs, end to end (issue 22): the real bot against the fake Discord and the
 * emulator, counting `POST /tts` there. Edits do not regenerate without bound, chat turns are
 * in the usage ledger (and `/usage`), and a chat author's daily share caps their chat.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CHAT_LEDGER_ID } from '../../src/store/index.ts';
import { api, submissionCount } from '../support/api-under-test.ts';
import { startTestBot, type TestBot } from '../support/bot-harness.ts';
import { chatLookups, readChatInVoice } from '../support/chat-e2e.ts';
import { eventually } from '../voice/support.ts';

let t: TestBot;
const chat = () => t.discord.guild.channels.chat ?? '';
const posts = () => submissionCount(t.emulator);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  t = await startTestBot({
    // Long enough for ten edits to arrive while a chat turn generates.
    emulator: { generationMs: () => 1500 },
    // What a message waiting out its merge hold costs: every message is held, as a busy chat's
    // are (issue 30 reads a quiet chat's message at once, which these lone probes would be).
    env: { READER_HOLD_QUIET_CHAT: 'on' },
    discord: {
      extraUsers: ['bobby', 'carol'],
      guilds: [{ textChannels: ['general', 'chat'], nicknames: { bobby: 'Bobby' } }],
    },
  });
  // One voice for everyone, so authors' messages merge (automatic voices split them by chatter).
  await readChatInVoice(t, { users: ['admin', 'bobby', 'carol'], reader: [{ voices: 'default' }] });
}, 60_000);
afterAll(async () => {
  await t?.stop();
});

const { config, heard, heardMatching } = chatLookups(() => t);

/** Waits until the voice queue is empty and nothing new was submitted for a while. */
async function quiet(): Promise<void> {
  const guildId = t.discord.guild.id;
  await eventually(
    'the queue drains',
    () => t.bot.services.voice.queue(guildId).length === 0,
    20_000,
  );
  let last = posts();
  for (;;) {
    await sleep(1500);
    if (posts() === last) return;
    last = posts();
  }
}

/** The member's generations today, as the ledger has them. */
async function ledgerToday(memberId: string): Promise<number> {
  const now = Date.now();
  const [today] = await t.bot.services.usage.days(t.discord.guild.id, now, now);
  return today?.members[memberId] ?? 0;
}

describe('chat spending', () => {
  test('edits of a waiting message only change what is said: no extra generation', async () => {
    await quiet();
    const before = posts();
    const message = t.discord.sendMessage({
      user: 'carol',
      channelId: chat(),
      content: 'waiting edit probe, version zero',
    });
    for (let i = 1; i <= 10; i++)
      t.discord.editMessage(message.id, `waiting edit probe, version ${i}`);
    expect(await heardMatching(/waiting edit probe/)).toBe(
      'carol said waiting edit probe, version 10.',
    );
    await quiet();
    expect(posts() - before).toBe(1);
  });

  // Behind a turn that plays, so the edits come before it can play: on v3 it streams, and is
  // ready (its stream held) at its first chunk, which would otherwise play at once.
  test('one message and ten edits while it generates or waits: read at most once more (2 generations, not 11)', async () => {
    await quiet();
    const guildId = t.discord.guild.id;
    t.voiceServer.reset(guildId);
    const ahead = posts();
    t.discord.sendMessage({
      user: 'bobby',
      channelId: chat(),
      content: 'a long message read first, so that the probe after it has to wait for it',
    });
    await eventually('bobby is heard', () => t.voiceServer.received(guildId).packets > 0, 15_000);
    // A stream is in the emulator's log once it closes.
    await eventually('bobby’s turn is counted', () => posts() > ahead, 15_000);
    const before = posts();
    const message = t.discord.sendMessage({
      user: 'carol',
      channelId: chat(),
      // Long enough that its v3 stream (about 3 s) is still going when the first edit arrives.
      content:
        'generated edit probe, version zero, with a few more words so that it takes a while to say',
    });
    // A v3 stream is in the emulator's log once it closes; its generation record is there at once.
    const started = () =>
      posts() > before ||
      api
        .generated(t.emulator)
        .some((id) => /generated edit probe/.test(api.textOf(t.emulator, id) ?? ''));
    await eventually('its generation was submitted', started, 15_000);
    for (let i = 1; i <= 10; i++) {
      t.discord.editMessage(message.id, `generated edit probe, version ${i}`);
      await sleep(100);
    }
    await heardMatching(/generated edit probe/);
    await quiet();
    expect(posts() - before).toBe(2);
    // The first edit is read; the nine after it change nothing.
    const read = heard().filter((text) => /generated edit probe/.test(text));
    expect(read).toHaveLength(1);
    expect(read[0]).toMatch(/generated edit probe, version 1\.$/);
  });

  test('a chat turn is in the usage ledger under its author, and /usage shows it', async () => {
    await quiet();
    const bobby = t.discord.users.bobby?.id ?? '';
    const before = await ledgerToday(bobby);
    t.discord.sendMessage({ user: 'bobby', channelId: chat(), content: 'ledger probe from bobby' });
    await heardMatching(/ledger probe from bobby/);
    await quiet();
    expect(await ledgerToday(bobby)).toBe(before + 1);
    const usage = await t.discord.slash({ user: 'admin', name: 'usage' }).waitForReply(15_000);
    expect(JSON.stringify(usage.embeds)).toContain(`<@${bobby}>`);
  });

  test('a turn merging several authors is recorded once, under the chat as a whole', async () => {
    await quiet();
    const before = { chat: await ledgerToday(CHAT_LEDGER_ID), posts: posts() };
    t.discord.sendMessage({ user: 'bobby', channelId: chat(), content: 'merged probe from bobby' });
    t.discord.sendMessage({ user: 'carol', channelId: chat(), content: 'merged probe from carol' });
    // One generation reads both ("Bobby said" is left out: he spoke last, a moment ago).
    expect(await heardMatching(/merged probe from bobby/)).toMatch(
      /merged probe from bobby\. carol said merged probe from carol\.$/,
    );
    await quiet();
    expect(posts() - before.posts).toBe(1);
    expect(await ledgerToday(CHAT_LEDGER_ID)).toBe(before.chat + 1);
  });

  test('a chat author’s daily share (`/config limits chat-daily`) caps their chat; others are still read', async () => {
    await quiet();
    const bobby = t.discord.users.bobby?.id ?? '';
    const used = await ledgerToday(bobby);
    expect(used).toBeGreaterThan(0); // his chat turns of the tests before
    const saved = await config('limits', { 'chat-daily': used }).waitForReply();
    expect(saved.content).toContain('Saved.');
    expect(saved.content).toContain(`**Chat share:** ${used} generation`);
    try {
      const before = posts();
      t.discord.sendMessage({ user: 'bobby', channelId: chat(), content: 'over my share, bobby' });
      await sleep(2500);
      // The admin has read nothing in chat today: well within the same share.
      t.discord.sendMessage({ user: 'admin', channelId: chat(), content: 'others are still read' });
      expect(await heardMatching(/others are still read/)).toBe(
        'admin said others are still read.',
      );
      await quiet();
      expect(posts() - before).toBe(1);
      expect(heard().join('\n')).not.toContain('over my share');
      // The streamer sees it counted, not just gone.
      const queue = await t.discord.slash({ user: 'admin', name: 'queue' }).waitForReply();
      expect(queue.content).toContain(
        "1 not read for want of an API key or of the chatter's daily share",
      );
    } finally {
      await config('limits', { 'chat-daily': 0 }).waitForReply();
    }
  });
});
