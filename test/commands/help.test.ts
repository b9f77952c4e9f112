/** `/help` end to end: the real bot on the fake Discord, for a member and an admin, in two languages. */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Json } from '../fake-discord/types.ts';
import { startTestBot, type TestBot } from '../support/bot-harness.ts';

let t: TestBot;
beforeAll(async () => {
  t = await startTestBot();
});
afterAll(async () => {
  await t?.stop();
});

const EPHEMERAL = 64;

/** Runs `/help` and returns its one reply's embed, checking it is private and the only message. */
async function help(
  user: string,
  locale?: string,
): Promise<{ title: string; description: string }> {
  const handle = t.discord.slash({
    user,
    name: 'help',
    ...(locale === undefined ? {} : { locale }),
  });
  const reply = await handle.waitForReply();
  expect((reply.flags ?? 0) & EPHEMERAL).toBe(EPHEMERAL);
  expect(handle.followUps()).toEqual([]);
  const [embed, ...more] = (reply.embeds ?? []) as Json[];
  expect(more).toEqual([]);
  return { title: String(embed?.title), description: String(embed?.description) };
}

/** The commands a help text lists, in order. */
const listed = (text: string): string[] =>
  [...text.matchAll(/^`\/([\w-]+)`/gm)].map((m) => String(m[1]));

describe('/help', () => {
  test('a member: the commands open to everyone, each with its description, and who sets the key', async () => {
    const { title, description } = await help('member');
    expect(title).toBe('TTS bot: what you can do here');
    const registered = t.discord.commands().global;
    const open = registered.filter((c) => c.default_member_permissions === null);
    expect(listed(description)).toEqual(
      open
        .map((c) => c.name)
        .filter((name) => name !== 'help')
        .sort(),
    );
    expect(description).toContain('`/say` — Turn text into speech');
    expect(description).not.toContain('`/config` —');
    expect(description).toContain(
      'a member with **Manage Server** sets one with `/config api-key`',
    );
    expect(description).not.toContain('Setting up');
    expect(description).not.toContain('oauth2/authorize');
  });

  test('an admin: /config too, and the setup path: key, channel to read, defaults, limits', async () => {
    const { description } = await help('admin');
    expect(listed(description)).toContain('config');
    const steps = [
      '/config api-key',
      '/config read-channel add',
      '/config defaults',
      '/config limits',
    ];
    const at = steps.map((step) => description.indexOf(`\`${step}\``));
    const invite = description.match(/https:\/\/discord\.com\/oauth2\/authorize\S+/)?.[0] ?? '';
    expect(new URL(invite).searchParams.get('client_id')).toBe(t.discord.applicationId);
    expect(at.every((index) => index > 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
  });

  test('the bot logged its invite link on start, for this application', () => {
    const logged = t.logs.filter((line) => line.includes('oauth2/authorize'));
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain(`client_id=${t.discord.applicationId}&`);
    expect(logged[0]).toContain('scope=bot+applications.commands&permissions=3197952');
  });

  test('in German, for a member and an admin', async () => {
    const member = await help('member', 'de');
    expect(member.title).toBe('TTS-Bot: Was du hier tun kannst');
    expect(member.description).toContain('`/say` — Text in Sprache umwandeln');
    expect(member.description).toContain('Ein Mitglied mit **Server verwalten**');
    const admin = await help('admin', 'de');
    expect(admin.description).toContain('**Einrichten**');
    expect(admin.description).toContain(
      '`/config` — Den TTS-Bot für diesen Server einrichten (Server verwalten)',
    );
  });
});
