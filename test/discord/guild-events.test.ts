/**
 * The welcome when the bot is added to a server, end to end: the real bot on the fake Discord,
 * which sends GUILD_CREATE for a server joined after start-up, as Discord does after an invite.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { translatorFor } from '../../src/i18n/index.ts';
import type { GuildIds } from '../fake-discord/index.ts';
import { Permission } from '../fake-discord/index.ts';
import type { GuildOptions } from '../fake-discord/types.ts';
import { startTestBot, type TestBot } from '../support/bot-harness.ts';

let t: TestBot;
beforeAll(async () => {
  t = await startTestBot();
});
afterAll(async () => {
  await t?.stop();
});

const { ViewChannel, SendMessages } = Permission;

/** The bot joins a server where it may post in the system channel, and its welcome arrives. */
async function joinAndAwaitWelcome(spec: GuildOptions = {}): Promise<GuildIds> {
  const guild = t.discord.joinGuild(spec);
  const channelId = guild.systemChannelId;
  if (channelId === null) throw new Error('this guild has no system channel');
  await expect
    .poll(() => t.discord.channelMessages(channelId).length, { timeout: 10_000 })
    .toBeGreaterThan(0);
  return guild;
}

/** Every message the bot posted in any channel of a guild. */
function postedIn(guild: GuildIds): string[] {
  return Object.values(guild.channels).flatMap((id) =>
    t.discord.channelMessages(id).map((message) => message.content),
  );
}

describe('welcome on joining a server', () => {
  test('posted once, in the system channel, in the server’s language, mentioning nobody', async () => {
    const guild = await joinAndAwaitWelcome({
      locale: 'de',
      textChannels: ['regeln', 'willkommen'],
      systemChannel: 'willkommen',
    });
    const [welcome, ...more] = t.discord.channelMessages(String(guild.systemChannelId));
    expect(more).toEqual([]);
    expect(welcome?.content).toBe(translatorFor('de').t('welcome.text'));
    expect(welcome?.content).toContain('`/config api-key`');
    expect(welcome?.content).toContain('`/help`');
    expect(t.discord.channelMessages(String(guild.channels.regeln))).toEqual([]);
    const body = t.discord.requests.find(
      (r) => r.method === 'POST' && r.route === `/channels/${guild.systemChannelId}/messages`,
    )?.body;
    expect(body).toMatchObject({ allowed_mentions: { parse: [] } });
    // Another join later does not repeat the first server's welcome.
    await joinAndAwaitWelcome();
    expect(t.discord.channelMessages(String(guild.systemChannelId))).toHaveLength(1);
  });

  test.each<[string, GuildOptions]>([
    [
      'the bot may not send messages in the system channel',
      { channelOverwrites: { general: [{ target: 'bot', deny: SendMessages }] } },
    ],
    [
      'the bot cannot see the system channel',
      { channelOverwrites: { general: [{ target: '@everyone', deny: ViewChannel }] } },
    ],
    ['the server has no system channel', { systemChannel: null }],
  ])('nothing when %s', async (_, spec) => {
    const silent = t.discord.joinGuild(spec);
    // Gateway events are handled in order: once a later join is welcomed, this one was decided.
    await joinAndAwaitWelcome();
    expect(postedIn(silent)).toEqual([]);
  });

  test('nothing for the servers the bot was already in at start-up', async () => {
    // A join after start-up is welcomed, so the start-up GUILD_CREATEs were handled long before.
    await joinAndAwaitWelcome();
    expect(postedIn(t.discord.guild)).toEqual([]);
    // And no direct messages anywhere.
    expect(t.discord.requests.filter((r) => r.route === '/users/@me/channels')).toEqual([]);
  });
});
