/**
 * An admin's settings end to end, through the fake Discord: `/config read` split by purpose,
 * explicit add and remove for the member and role lists, the old `/config reader` saying where
 * each option went, `/config twitch read badges`, and `/config show` giving every setting (in
 * pages with buttons when it is long).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { translatorFor } from '../../src/i18n/index.ts';
import type { MessageJson } from '../fake-discord/index.ts';
import { startTestBot, type TestBot } from '../support/bot-harness.ts';

let t: TestBot;
beforeAll(async () => {
  t = await startTestBot({
    discord: {
      extraUsers: ['bobby'],
      guilds: [{ textChannels: ['general', 'chat'], roles: { VIP: [], Muted: [] } }],
    },
  });
  await t.configureKey();
});
afterAll(async () => {
  await t?.stop();
});

type Options = Record<string, string | number | boolean>;
const config = (subcommand: string, options: Options = {}, locale?: string) =>
  t.discord
    .slash({
      user: 'admin',
      name: 'config',
      subcommand,
      options,
      ...(locale === undefined ? {} : { locale }),
    })
    .waitForReply();
const reader = async () => (await t.bot.services.settings.guild(t.discord.guild.id)).reader;
const id = (user: string) => t.discord.users[user]?.id ?? '';
const role = (name: string) => t.discord.guild.roles[name] ?? '';

describe('/config read', () => {
  test('who, sound and pace each save their own options and show only their own settings', async () => {
    const who = await config('read who', { silent: 'read', 'read-bots': 'webhooks' });
    expect(who.content).toContain('Reader settings saved.');
    expect(who.content).toContain('**silent:** read');
    expect(who.content).toContain('**read-bots:** webhooks');
    expect(who.content).not.toContain('max-age');
    const sound = await config('read sound', { emoji: 'drop', 'said-prefix': false });
    expect(sound.content).toContain('**emoji:** drop');
    expect(sound.content).not.toContain('silent');
    const pace = await config('read pace', { 'max-age': '90s', 'max-length': 200 });
    expect(pace.content).toContain('**max-age:** 90s');
    expect(pace.content).toContain('200 characters');
    expect(await reader()).toMatchObject({
      silent: 'read',
      readBots: 'webhooks',
      emoji: 'drop',
      saidPrefix: false,
      maxAgeMs: 90_000,
      maxLength: 200,
    });
    // With no option, each shows its settings and changes nothing.
    const shown = await config('read pace');
    expect(shown.content).toContain('Reader settings:');
    expect(shown.content).toContain('**max-age:** 90s');
  });

  test('each subcommand has few options (Discord shows them as one list)', () => {
    const command = t.discord.commands().global.find((c) => c.name === 'config');
    const read = command?.options?.find((o) => o.name === 'read');
    const subs = read?.options ?? [];
    expect(subs.map((s) => s.name)).toEqual([
      'who',
      'sound',
      'pace',
      'ignore-member',
      'ignore-role',
      'priority-role',
    ]);
    for (const sub of subs) expect(sub.options?.length ?? 0, sub.name).toBeLessThanOrEqual(7);
  });

  test('a list entry added twice stays added, and removed is gone (no toggle)', async () => {
    const first = await config('read ignore-member', { action: 'add', member: 'bobby' });
    expect(first.content).toContain(`<@${id('bobby')}> is now ignored.`);
    await config('read ignore-member', { action: 'add', member: 'bobby' });
    expect((await reader()).ignoredMembers).toEqual([id('bobby')]);
    await config('read ignore-role', { action: 'add', role: 'Muted' });
    await config('read ignore-role', { action: 'add', role: 'Muted' });
    await config('read priority-role', { action: 'add', role: 'VIP' });
    const again = await config('read priority-role', { action: 'add', role: 'VIP' });
    expect(again.content).toContain(`**Priority roles:** <@&${role('VIP')}>`);
    expect(await reader()).toMatchObject({
      ignoredRoles: [role('Muted')],
      priorityRoles: [role('VIP')],
    });
    const removed = await config('read ignore-member', { action: 'remove', member: 'bobby' });
    expect(removed.content).toContain('is read again');
    await config('read ignore-member', { action: 'remove', member: 'bobby' });
    expect((await reader()).ignoredMembers).toEqual([]);
    await config('read ignore-member', { action: 'add', member: 'bobby' });
  });

  test('answers in the member’s language', async () => {
    const { t: de } = translatorFor('de');
    const shown = await config('read who', {}, 'de');
    expect(shown.content).toContain(de('reader.settings'));
    const added = await config('read ignore-role', { action: 'add', role: 'Muted' }, 'de');
    expect(added.content).toContain(de('reader.role_ignored', { role: `<@&${role('Muted')}>` }));
  });

  test('the old /config reader still saves, and says where each option given went', async () => {
    const saved = await config('reader', { 'max-speed': 1.25, spoilers: 'read' });
    expect(saved.content).toContain('Reader settings saved.');
    expect(saved.content).toContain('`max-speed` → `/config read pace max-speed`');
    expect(saved.content).toContain('`spoilers` → `/config read sound spoilers`');
    expect(await reader()).toMatchObject({ maxSpeed: 1.25, spoilers: 'read' });
    const bare = await config('reader');
    expect(bare.content).toContain('`/config reader` is going away');
    const { t: fr } = translatorFor('fr');
    const french = await config('reader', { 'twitch-badges': 'vip' }, 'fr');
    expect(french.content).toContain(
      fr('reader.moved', { moves: '`twitch-badges` → `/config twitch read badges`' }),
    );
  });

  test('/config twitch read badges sets which Twitch chatters are read', async () => {
    const set = await config('twitch read', { badges: 'moderator vip' });
    expect(set.content).toContain('**twitch-badges:** moderator vip');
    expect((await reader()).twitchBadges).toEqual(['moderator', 'vip']);
  });
});

describe('on v2, /config offers only what v2 can use', () => {
  test('no daily budget (v2 bills no money) and no speech language (v2 takes none)', async () => {
    const command = t.discord.commands().global.find((c) => c.name === 'config');
    const optionsOf = (sub: string) =>
      (command?.options?.find((o) => o.name === sub)?.options ?? []).map((o) => o.name);
    expect(optionsOf('limits')).toEqual(['member-daily', 'chat-daily']);
    expect(optionsOf('defaults')).toEqual(['voice', 'model', 'speed']);
    const limits = await config('limits');
    expect(limits.content).toContain('Per-member share');
    expect(limits.content).not.toContain('budget');
  });
});

/** Every page of `/config show`, turned with its buttons. */
async function allPages(first: MessageJson): Promise<string[]> {
  const texts = [first.content ?? ''];
  let message = first;
  for (let page = 1; page < 20; page++) {
    const next = `config:show:${page}:next`;
    const rows = (message.components ?? []) as {
      components?: { custom_id?: string; disabled?: boolean }[];
    }[];
    const button = rows.flatMap((r) => r.components ?? []).find((c) => c.custom_id === next);
    if (button === undefined || button.disabled === true) break;
    const click = t.discord.clickButton({ user: 'admin', message, customId: next });
    await click.waitFor((event) => event.kind === 'edit', 10_000);
    const turned = t.discord.message(message.id);
    if (turned === undefined) throw new Error('the settings message is gone');
    message = turned;
    texts.push(message.content ?? '');
  }
  return texts;
}

describe('/config show', () => {
  test('lists every setting a test changed, each under the command that changes it', async () => {
    const chat = t.discord.guild.channels.chat ?? '';
    await config('defaults', { speed: 1.5 });
    await config('limits', { 'member-daily': 7, 'chat-daily': 3 });
    await config('read-channel add', { channel: chat });
    await config('read who', { 'new-member-delay': '10m' });
    await config('twitch read', { mode: 'cheers', 'min-bits': 50 });
    await config('dictionary add', { word: 'gg', replacement: 'good game' });
    await config('block-word add', { word: 'grapefruit' });
    const first = await config('show');
    const text = (await allPages(first)).join('\n');
    for (const expected of [
      '__**/config api-key**__',
      '**API key:** `adx…',
      '__**/config defaults**__',
      'speed 1.5',
      '__**/config limits**__',
      '7 generations',
      '3 generations',
      `<#${chat}>`,
      '__**/config read who**__',
      '**silent:** read',
      '**read-bots:** webhooks',
      '**new-member-delay:** 10m',
      '__**/config read sound**__',
      '**emoji:** drop',
      '**said-prefix:** off',
      '**spoilers:** read',
      '__**/config read pace**__',
      '**max-age:** 90s',
      '200 characters',
      '**max-speed:** ×1.25',
      `**Ignored members:** <@${id('bobby')}>`,
      `**Ignored roles:** <@&${role('Muted')}>`,
      `**Priority roles:** <@&${role('VIP')}>`,
      '__**/config twitch**__',
      '**read:** cheers · **min-bits:** 50',
      '**twitch-badges:** moderator vip',
      '__**/config dictionary**__',
      '`gg` → good game',
      '__**/config block-word**__',
      '`grapefruit`',
    ])
      expect(text).toContain(expected);
  });

  test('a long list runs over pages, each turned with its buttons and titled with its place', async () => {
    for (let n = 0; n < 14; n++)
      await config('dictionary add', {
        word: `word${n}`,
        replacement: `${'long '.repeat(36)}${n}`,
      });
    const first = await config('show');
    expect(first.content).toMatch(/^\*\*Server settings, page 1 of [2-9]\*\*/);
    const pages = await allPages(first);
    expect(pages.length).toBeGreaterThan(1);
    for (const page of pages) expect(page.length).toBeLessThanOrEqual(2000);
    const text = pages.join('\n');
    for (let n = 0; n < 14; n++) expect(text).toContain(`\`word${n}\``);
    expect(text).toContain('`grapefruit`');
  });
});
