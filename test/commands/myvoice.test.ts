/**
 * A member's own settings end to end (issue 37): the real bot on the fake Discord, reading its
 * `chat` channel and its voice channel's chat into the fake voice server through the emulator.
 * A bare `/myvoice` shows and changes nothing; a member opts out of being read and sets how
 * their name is spoken, an admin sets it for another; `/config forget` forgets it all. Each
 * check posts what must not be read before a message that must, and waits for that one: the
 * reader handles a server's messages in order.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { translatorFor } from '../../src/i18n/index.ts';
import type { Json } from '../fake-discord/index.ts';
import { startTestBot, type TestBot } from '../support/bot-harness.ts';
import { chatLookups, readChatInVoice } from '../support/chat-e2e.ts';

let t: TestBot;
const EPHEMERAL = 64;
const chat = () => t.discord.guild.channels.chat ?? '';
const voiceChat = () => t.discord.guild.voiceChannelId;
const idOf = (user: string) => t.discord.users[user]?.id ?? '';

beforeAll(async () => {
  t = await startTestBot({
    emulator: { toneSecondsPerChar: 0.005, generationMs: () => 150 },
    discord: {
      extraUsers: ['bobby', 'carol'],
      guilds: [{ textChannels: ['general', 'chat'], nicknames: { bobby: 'Bobby the Great' } }],
    },
  });
  await readChatInVoice(t, { users: ['admin', 'bobby', 'carol'] });
  // The voice channel's chat is read too (set in the store: the command that sets it is not
  // what this file tests).
  await t.bot.services.settings.updateGuild(t.discord.guild.id, (settings) => ({
    ...settings,
    reader: { ...settings.reader, voiceChat: true },
  }));
});
afterAll(async () => {
  await t?.stop();
});

const { submitted, heardMatching } = chatLookups(() => t);

/** `/myvoice` as `user` with `options`; resolves with the reply. */
function myvoice(user: string, options: Record<string, string | boolean> = {}, locale?: string) {
  return t.discord
    .slash({ user, name: 'myvoice', options, ...(locale === undefined ? {} : { locale }) })
    .waitForReply();
}

/**
 * `/config member-name` as `user` (the admin unless told); sent even to a member Discord would
 * not show it to, as a stale client could, so the bot's own check answers.
 */
function memberName(options: Record<string, string | boolean>, user = 'admin') {
  return t.discord
    .slash({ user, name: 'config', subcommand: 'member-name', options, force: true })
    .waitForReply();
}

const isEphemeral = (reply: Json & { flags?: number }) => ((reply.flags ?? 0) & EPHEMERAL) !== 0;

describe('/myvoice shows, and changes only what it is given', () => {
  test('a bare /myvoice after choosing a voice shows it and leaves it set', async () => {
    const set = await myvoice('bobby', { voice: 'am_2riuownnf' });
    expect(set.content).toBe('Your default voice is now **Ethan · Male · American**.');
    const shown = await myvoice('bobby');
    expect(isEphemeral(shown)).toBe(true);
    expect(shown.content).toBe(
      [
        '**Your settings** (only you see this):',
        '**Voice:** Ethan · Male · American',
        '**Speech language:** none chosen: the server’s',
        '**Chat messages read here:** yes',
        '**Name read here:** your nickname',
        'Change one with its option (`voice`, `language`, `read`, `name`); `reset` clears what you set.',
      ].join('\n'),
    );
    expect(await t.bot.services.settings.user(idOf('bobby'))).toEqual({ voiceId: 'am_2riuownnf' });
    expect((await myvoice('bobby')).content).toContain('**Voice:** Ethan');
  });

  test('resetting is explicit: reset: voice clears the voice only', async () => {
    await myvoice('bobby', { read: true });
    const reset = await myvoice('bobby', { reset: 'voice' });
    expect(reset.content).toBe('Your default voice is cleared; `/say` uses the server’s default.');
    expect(await t.bot.services.settings.user(idOf('bobby'))).toEqual({});
  });

  test('settings stored by the version before read the same: a bare /myvoice shows them, in the member’s language', async () => {
    // What `/myvoice` stored before member settings existed, written as it wrote it.
    await t.bot.store.set(`user:${idOf('carol')}`, { voiceId: 'af_3kbq21leo', language: 'de' });
    const shown = await myvoice('carol');
    expect(shown.content).toContain('**Voice:** Lily · Female · American');
    expect(shown.content).toContain('**Speech language:** German (de)');
    expect(shown.content).toContain('**Chat messages read here:** yes');
    const german = await myvoice('carol', {}, 'de');
    const de = translatorFor('de').t;
    expect(german.content?.split('\n')).toEqual([
      de('myvoice.show_title'),
      de('myvoice.show_voice', { voice: 'Lily · Female · American' }),
      de('myvoice.show_language', { language: 'Deutsch (de)' }),
      de('myvoice.show_read_on'),
      de('myvoice.show_name_none'),
      de('myvoice.show_hint'),
    ]);
    expect(await t.bot.services.settings.user(idOf('carol'))).toEqual({
      voiceId: 'af_3kbq21leo',
      language: 'de',
    });
  });
});

describe('opting out of being read', () => {
  test('an opted-out member is not read (read channel, voice channel chat), and is again after opting in', async () => {
    const off = await myvoice('bobby', { read: false });
    expect(off.content).toBe(
      'Your chat messages are no longer read aloud in this server. `/myvoice read: True` reads them again.',
    );
    expect((await myvoice('bobby')).content).toContain(
      '**Chat messages read here:** no, you opted out',
    );
    t.discord.sendMessage({ user: 'bobby', channelId: chat(), content: 'opted out in the chat' });
    t.discord.sendMessage({
      user: 'bobby',
      channelId: voiceChat(),
      content: 'opted out in the voice chat',
    });
    t.discord.sendMessage({ user: 'carol', channelId: chat(), content: 'carol is read meanwhile' });
    await heardMatching(/carol is read meanwhile/);
    expect(submitted().join('\n')).not.toMatch(/opted out in/);
    const on = await myvoice('bobby', { read: true });
    expect(on.content).toBe('Your chat messages are read aloud in this server.');
    t.discord.sendMessage({
      user: 'bobby',
      channelId: voiceChat(),
      content: 'bobby is back in the voice chat',
    });
    t.discord.sendMessage({ user: 'bobby', channelId: chat(), content: 'bobby is back in chat' });
    await heardMatching(/bobby is back in the voice chat/);
    await heardMatching(/bobby is back in chat/);
  }, 40_000);
});

describe('how a name is spoken', () => {
  test('a member’s spoken name is used in "X said", cleaned like any name', async () => {
    const set = await myvoice('bobby', { name: 'Rob <@123>' });
    expect(set.content).toContain('In this server, chat now reads your name as **Rob');
    t.discord.sendMessage({ user: 'carol', channelId: chat(), content: 'carol speaks in between' });
    t.discord.sendMessage({
      user: 'bobby',
      channelId: chat(),
      content: 'hello under my spoken name',
    });
    expect(await heardMatching(/hello under my spoken name/)).toMatch(
      /Rob 123 said hello under my spoken name/,
    );
    expect(submitted().join('\n')).not.toMatch(/Bobby the Great said hello under/);
  });

  test('an admin sets another member’s spoken name (Manage Server only); the member sees who set it', async () => {
    const refused = await memberName({ member: 'carol', name: 'Not allowed' }, 'bobby');
    expect(refused.content).toContain('Manage Server');
    const set = await memberName({ member: 'carol', name: 'Caroline' });
    expect(isEphemeral(set)).toBe(true);
    expect(set.content).toBe(
      `Chat reads <@${idOf('carol')}>’s name as **Caroline** (set by an admin).`,
    );
    expect((await memberName({ member: 'carol' })).content).toBe(set.content);
    expect((await myvoice('carol')).content).toContain(
      '**Name read here:** Caroline (set by an admin)',
    );
    t.discord.sendMessage({ user: 'bobby', channelId: chat(), content: 'bobby speaks in between' });
    t.discord.sendMessage({ user: 'carol', channelId: chat(), content: 'named by the admin now' });
    expect(await heardMatching(/named by the admin now/)).toMatch(
      /Caroline said named by the admin now/,
    );
  });

  test('a name with nothing to speak is refused, in the member’s language', async () => {
    const refused = await myvoice('carol', { name: '\u200b\u200b' }, 'fr');
    expect(refused.content).toBe(translatorFor('fr').t('errors.spoken_name_empty'));
    expect((await memberName({ member: 'carol' })).content).toContain('**Caroline**');
  });
});

describe('forgetting', () => {
  test('reset: everything forgets the member’s own settings', async () => {
    const reset = await myvoice('carol', { reset: 'everything' });
    expect(reset.content).toBe(
      'Everything you set is forgotten: your voice and language (in every server) and, in this server, your spoken name and opting out.',
    );
    expect(await t.bot.store.get(`user:${idOf('carol')}`)).toBeUndefined();
    expect(await t.bot.store.get(`member:${t.discord.guild.id}:${idOf('carol')}`)).toBeUndefined();
  });

  test('/config forget forgets members’ settings in the server and says so', async () => {
    await myvoice('carol', { read: false });
    const question = await t.discord
      .slash({ user: 'admin', name: 'config', subcommand: 'forget' })
      .waitForReply();
    const confirm = t.discord.clickButton({
      user: 'admin',
      message: question,
      customId: 'config:forget:confirm',
    });
    await confirm.waitFor((event) => event.kind === 'edit');
    expect(t.discord.message(question.id)?.content).toContain(
      '• 2 members’ own settings (opted out, spoken names)',
    );
    expect(await t.bot.services.members.get(t.discord.guild.id, idOf('bobby'))).toEqual({});
    expect(await t.bot.services.members.get(t.discord.guild.id, idOf('carol'))).toEqual({});
  });
});
