/**
 * What the bot lacks where a command needs it, said before anything happens: `/join` into a
 * voice channel where it may not speak, `/say` as a file where it may not attach files. The
 * real bot on the fake Discord, whose channel overwrites discord.js computes as Discord does.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { USER_ONE } from '../../tools/emulator/index.ts';
import { Permission } from '../fake-discord/index.ts';
import { api } from '../support/api-under-test.ts';
import { startTestBot, type TestBot } from '../support/bot-harness.ts';
import { eventually } from '../voice/support.ts';

let t: TestBot;
const EPHEMERAL = 64;

beforeAll(async () => {
  t = await startTestBot({
    discord: {
      guilds: [
        {
          textChannels: ['general', 'no-files', 'chat'],
          voiceChannels: ['Voice', 'Muted', 'Closed'],
          channelOverwrites: {
            Muted: [{ target: 'tts-bot', deny: Permission.Speak }],
            Closed: [{ target: 'tts-bot', deny: Permission.Connect | Permission.Speak }],
            'no-files': [{ target: 'tts-bot', deny: Permission.AttachFiles }],
          },
        },
      ],
    },
  });
  await t.configureKey(USER_ONE.apiKey);
});
afterAll(async () => {
  await t?.stop();
});

const channel = (name: string) => t.discord.guild.channels[name] ?? '';
const botInVoice = () =>
  t.discord.voiceStates().find((state) => state.userId === t.discord.botUser.id)?.channelId;

/** The private refusal a command ended with (the public reply, if deferred, is deleted). */
async function refusal(handle: ReturnType<typeof t.discord.slash>): Promise<string> {
  await handle.waitFor((e) => (e.kind === 'callback' && e.type === 4) || e.kind === 'delete');
  const reply = handle.callback()?.type === 4 ? handle.lastMessage() : handle.followUps()[0];
  expect((reply?.flags ?? 0) & EPHEMERAL).toBe(EPHEMERAL);
  return reply?.content ?? '';
}

/** Puts the member in a voice channel and waits until the bot sees it. */
async function memberIn(name: string): Promise<void> {
  t.discord.moveMember({ userId: 'member', channelId: channel(name) });
  await eventually('the bot sees the member', () =>
    t.discord
      .voiceStates()
      .some((s) => s.userId === t.discord.users.member.id && s.channelId === channel(name)),
  );
}

describe('/join', () => {
  test('where the bot may connect but not speak: refused, naming Speak and the channel', async () => {
    await memberIn('Muted');
    const text = await refusal(t.discord.slash({ user: 'member', name: 'join' }));
    expect(text).toContain('**Speak**');
    expect(text).not.toContain('**Connect**');
    expect(text).toContain(`<#${channel('Muted')}>`);
    expect(text).toContain('Manage Server');
    expect(botInVoice()).toBeUndefined();
  });

  test('where it may do neither: both named, in the member’s language', async () => {
    await memberIn('Closed');
    const handle = t.discord.slash({ user: 'member', name: 'join', locale: 'de' });
    const text = await refusal(handle);
    expect(text).toContain('**Verbinden**, **Sprechen**');
    expect(botInVoice()).toBeUndefined();
  });

  test('where it may connect and speak: joined', async () => {
    await memberIn('Voice');
    const reply = await t.discord.slash({ user: 'member', name: 'join' }).waitForReply(15_000);
    expect(reply.content).toContain(`Joined <#${channel('Voice')}>`);
    await t.discord.slash({ user: 'member', name: 'leave' }).waitForReply(15_000);
  });
});

describe('auto-join', () => {
  test('into a channel where the bot may not speak: not joined, and the log names Speak', async () => {
    const guildId = t.discord.guild.id;
    await t.bot.services.settings.updateGuild(guildId, (guild) => ({
      ...guild,
      reader: { ...guild.reader, channels: [channel('chat')], autoJoin: true },
    }));
    await memberIn('Muted');
    t.discord.sendMessage({ user: 'member', channelId: channel('chat'), content: 'read me' });
    await eventually('the refused auto-join is logged', () =>
      t.logs.some((line) => line.includes('auto-join failed')),
    );
    const logged = t.logs.find((line) => line.includes('auto-join failed')) ?? '';
    expect(logged).toContain('**Speak**');
    expect(logged).toContain(channel('Muted'));
    expect(botInVoice()).toBeUndefined();
  });
});

describe('/say in voice', () => {
  test('after the bot was moved where it may not speak: refused, naming Speak there', async () => {
    await memberIn('Voice');
    await t.discord.slash({ user: 'member', name: 'join' }).waitForReply(15_000);
    t.discord.moveBot(channel('Muted'));
    await eventually(
      'the bot sees its move',
      () => t.bot.services.voice.channelOf(t.discord.guild.id) === channel('Muted'),
    );
    await memberIn('Muted');
    const before = api.spoken(t.emulator, USER_ONE.userId).length;
    const text = await refusal(
      t.discord.slash({ user: 'member', name: 'say', options: { text: 'hello', output: 'voice' } }),
    );
    expect(text).toContain('**Speak**');
    expect(text).toContain(`<#${channel('Muted')}>`);
    expect(api.spoken(t.emulator, USER_ONE.userId)).toHaveLength(before);
    await t.discord.slash({ user: 'admin', name: 'leave' }).waitForReply(15_000);
  });
});

describe('/say as a file', () => {
  test('where the bot may not attach files: refused, naming Attach Files, nothing generated', async () => {
    const before = api.spoken(t.emulator, USER_ONE.userId).length;
    const handle = t.discord.slash({
      user: 'member',
      name: 'say',
      channelId: channel('no-files'),
      options: { text: 'hello there', output: 'file' },
    });
    const text = await refusal(handle);
    expect(text).toContain('**Attach Files**');
    expect(text).toContain(`<#${channel('no-files')}>`);
    expect(handle.files()).toEqual([]);
    expect(api.spoken(t.emulator, USER_ONE.userId)).toHaveLength(before);
  });
});
