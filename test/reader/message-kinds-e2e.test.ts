/**
 * Discord's other kinds of message end to end (issue 30): the real bot on the fake Discord,
 * which sends them as Discord does (`flags: 4096`, `sticker_items`, `message_snapshots`, `poll`,
 * messages in a voice channel's chat), reading into the fake voice server through the emulator.
 * Each check posts what must not be read before a message that must, and waits for that one:
 * the reader handles a server's messages in order.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestBot, type TestBot } from '../support/bot-harness.ts';
import { chatLookups, readChatInVoice } from '../support/chat-e2e.ts';

let t: TestBot;
const SILENT = 4096;
const chat = () => t.discord.guild.channels.chat ?? '';
const voiceChat = () => t.discord.guild.voiceChannelId;

beforeAll(async () => {
  t = await startTestBot({
    emulator: { toneSecondsPerChar: 0.005, generationMs: () => 200 },
    discord: { extraUsers: ['bobby', 'carol'], guilds: [{ textChannels: ['general', 'chat'] }] },
  });
  await readChatInVoice(t, { users: ['admin', 'bobby'], reader: [{ voices: 'default' }] });
});
afterAll(async () => {
  await t?.stop();
});

const { config, submitted, heardMatching } = chatLookups(() => t);

describe('kinds of Discord message', () => {
  test('@silent messages are not read by default; silent: read reads them', async () => {
    t.discord.sendMessage({
      user: 'bobby',
      channelId: chat(),
      content: 'a quiet aside',
      flags: SILENT,
    });
    t.discord.sendMessage({
      user: 'bobby',
      channelId: chat(),
      content: 'a loud hello to everyone',
    });
    await heardMatching(/loud hello/);
    expect(submitted().join('\n')).not.toMatch(/quiet aside/);
    const shown = await config('reader', { silent: 'read' }).waitForReply();
    expect(shown.content).toContain('**silent:** read');
    t.discord.sendMessage({
      user: 'bobby',
      channelId: chat(),
      content: 'a second quiet aside, read now',
      flags: SILENT,
    });
    await heardMatching(/second quiet aside/);
  });

  test('a sticker is read by its name', async () => {
    t.discord.sendMessage({ user: 'bobby', channelId: chat(), content: '', stickers: ['Wave'] });
    expect(await heardMatching(/sticker/)).toContain('bobby sent a sticker: Wave.');
  });

  test('forwards are not read by default: a forward of an ignored member’s message is not read under the forwarder’s name', async () => {
    const ignored = await config('reader', { 'ignore-member': 'carol' }).waitForReply();
    expect(ignored.content).toContain('**forwards:** off');
    // What carol wrote, forwarded by bobby: Discord's forward says nothing of carol.
    t.discord.sendMessage({
      user: 'bobby',
      channelId: chat(),
      content: '',
      forward: { content: 'carol wrote this and is ignored' },
    });
    t.discord.sendMessage({ user: 'bobby', channelId: chat(), content: 'after the forward' });
    await heardMatching(/after the forward/);
    expect(submitted().join('\n')).not.toMatch(/carol wrote this/);
    await config('reader', { 'ignore-member': 'carol' }).waitForReply();
  });

  test('a forward is read as "forwarded:", cleaned, attachments named, blocked words screened', async () => {
    const on = await config('read who', { forwards: true }).waitForReply();
    expect(on.content).toContain('**forwards:** on');
    t.discord.sendMessage({
      user: 'bobby',
      channelId: chat(),
      content: '',
      forward: {
        content: '**Big** news at https://example.com/post/1',
        attachments: [{ filename: 'cat.png', contentType: 'image/png' }],
      },
    });
    expect(await heardMatching(/forwarded/)).toContain(
      'bobby forwarded: Big news at a link to example.com, with an image.',
    );
    await config('block-word add', { word: 'darn' }).waitForReply();
    t.discord.sendMessage({
      user: 'bobby',
      channelId: chat(),
      content: '',
      forward: { content: 'this darn thing again' },
    });
    t.discord.sendMessage({
      user: 'bobby',
      channelId: chat(),
      content: 'after the blocked forward',
    });
    await heardMatching(/after the blocked forward/);
    expect(submitted().join('\n')).not.toMatch(/darn/);
  });

  test('a poll is read as "asked: … Options: …", within max-length', async () => {
    t.discord.sendMessage({
      user: 'bobby',
      channelId: chat(),
      content: '',
      poll: { question: 'Pizza tonight?', answers: ['yes', 'no', 'maybe 🍕'] },
    });
    expect(await heardMatching(/asked/)).toContain(
      'bobby asked: Pizza tonight? Options: yes, no, and maybe pizza.',
    );
    await config('reader', { 'max-length': 40 }).waitForReply();
    t.discord.sendMessage({
      user: 'bobby',
      channelId: chat(),
      content: '',
      poll: {
        question: 'Which of these games should we play on the stream this weekend?',
        answers: ['the long one', 'the short one'],
      },
    });
    const long = await heardMatching(/Which of these/);
    expect(long).toContain('and more');
    expect(long).not.toContain('short one');
    await config('reader', { 'max-length': 300 }).waitForReply();
  });

  test("the voice channel's chat is read with voice-chat on, by the same rules", async () => {
    t.discord.sendMessage({
      user: 'bobby',
      channelId: voiceChat(),
      content: 'voice chat while off',
    });
    t.discord.sendMessage({ user: 'bobby', channelId: chat(), content: 'read channel while off' });
    await heardMatching(/read channel while off/);
    expect(submitted().join('\n')).not.toMatch(/voice chat while off/);
    const shown = await config('reader', { 'voice-chat': true }).waitForReply();
    expect(shown.content).toContain('**voice-chat:** on');
    t.discord.sendMessage({
      user: 'bobby',
      channelId: voiceChat(),
      content: 'voice chat while on',
    });
    await heardMatching(/voice chat while on/);
    // voice-members-only: carol is in no voice channel; ignore-prefixes too.
    await config('reader', { 'voice-members-only': true }).waitForReply();
    t.discord.sendMessage({
      user: 'carol',
      channelId: voiceChat(),
      content: 'carol is not in the call',
    });
    t.discord.sendMessage({ user: 'bobby', channelId: voiceChat(), content: '!play something' });
    t.discord.sendMessage({
      user: 'bobby',
      channelId: voiceChat(),
      content: 'bobby is in the call',
    });
    await heardMatching(/bobby is in the call/);
    expect(submitted().join('\n')).not.toMatch(/carol is not|play something/);
  });
});
