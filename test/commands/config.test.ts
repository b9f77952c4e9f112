import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { USER_ONE, USER_TWO } from '../../tools/emulator/index.ts';
import { api } from '../support/api-under-test.ts';
import { startTestBot, type TestBot } from '../support/bot-harness.ts';

let t: TestBot;
beforeAll(async () => {
  t = await startTestBot();
});
afterAll(async () => {
  await t?.stop();
});

const EPHEMERAL = 64;

describe('/config', () => {
  test('the bot registered its commands once, with Manage Server as /config’s default permission', () => {
    const { global, putCount } = t.discord.commands();
    expect(putCount).toBe(1);
    const names = global.map((c) => c.name).sort();
    expect(names).toEqual(expect.arrayContaining(['config', 'myvoice', 'say', 'voices']));
    expect(global.find((c) => c.name === 'config')?.default_member_permissions).toBe('32');
  });

  test('a member without Manage Server is refused, ephemerally', async () => {
    const handle = t.discord.slash({
      user: 'member',
      name: 'config',
      subcommand: 'show',
      force: true,
    });
    const reply = await handle.waitForReply();
    expect(reply.content).toContain('Manage Server');
    expect((reply.flags ?? 0) & EPHEMERAL).toBe(EPHEMERAL);
  });

  test('a pasted value with spaces or control characters is refused before any request', async () => {
    const before = t.emulator.counts()[api.voices]?.total ?? 0;
    const handle = await t.discord
      .slash({ user: 'admin', name: 'config', subcommand: 'api-key' })
      .submitModal({ 'api-key': 'adx_two words\u0007bell' });
    const reply = await handle.waitForReply();
    expect(reply.content).toContain('not an API key');
    expect(reply.content).not.toContain('two words');
    expect((reply.flags ?? 0) & EPHEMERAL).toBe(EPHEMERAL);
    expect(t.emulator.counts()[api.voices]?.total ?? 0).toBe(before);
  });

  test('an invalid key is checked with GET /voices and not stored', async () => {
    const held = t.bot.services.tts.size;
    const reply = await t.configureKey('adx_wrong_key_000000');
    expect(t.bot.services.tts.size).toBe(held);
    expect(reply).toContain('not valid');
    expect(reply).toContain('adx…000');
    expect(reply).not.toContain('adx_wrong_key_000000');
    const show = await t.discord
      .slash({ user: 'admin', name: 'config', subcommand: 'show' })
      .waitForReply();
    expect(show.content).toContain('not set');
  });

  test('the admin sets a key through the modal: checked, stored encrypted, shown masked', async () => {
    const before = t.emulator.counts()[api.voices]?.total ?? 0;
    const reply = await t.configureKey(USER_ONE.apiKey);
    expect(reply).toContain('checked and saved');
    expect(reply).toContain(`adx…${USER_ONE.apiKey.slice(-4)}`);
    expect(t.emulator.counts()[api.voices]?.total).toBe(before + 1);
    const show = await t.discord
      .slash({ user: 'admin', name: 'config', subcommand: 'show' })
      .waitForReply();
    expect(show.content).toContain(`adx…${USER_ONE.apiKey.slice(-4)}`);
    if (api.version === 'v2') {
      expect(show.content).toContain('Generations:** 0 of 20 per 1 minute');
      expect(show.content).toContain('0 of 500 per 1 day');
    } else {
      // v3 limits requests, not generations: its one allowance a minute (the key's check counted).
      expect(show.content).not.toContain('Generations');
      expect(show.content).toMatch(
        new RegExp(`\\*\\*API requests:\\*\\* [1-9]\\d* of ${api.defaultPerMinute} per 1 minute`),
      );
    }
    for (const file of await readdir(t.dataDir)) {
      const bytes = await readFile(join(t.dataDir, file));
      expect(bytes.includes(Buffer.from(USER_ONE.apiKey)), file).toBe(false);
    }
  });

  test('defaults are validated against the voice list and saved', async () => {
    const bad = await t.discord
      .slash({
        user: 'admin',
        name: 'config',
        subcommand: 'defaults',
        options: { voice: 'nope_voice' },
      })
      .waitForReply();
    expect(bad.content).toContain('There is no voice');
    const good = await t.discord
      .slash({
        user: 'admin',
        name: 'config',
        subcommand: 'defaults',
        options: { voice: 'bf_jp71qvnzd', speed: 1.25 },
      })
      .waitForReply();
    expect(good.content).toContain('Defaults saved: voice `bf_jp71qvnzd`, model base, speed 1.25');
  });

  test('voice autocomplete lists the key’s voices', async () => {
    const choices = await t.discord.autocomplete({
      user: 'admin',
      name: 'config',
      subcommand: 'defaults',
      options: { voice: 'li' },
      focused: 'voice',
    });
    expect(choices).toContainEqual({ name: 'Lily · Female · American', value: 'af_3kbq21leo' });
  });

  test('remove-api-key forgets the key; then /say tells members to ask an admin', async () => {
    const removed = await t.discord
      .slash({ user: 'admin', name: 'config', subcommand: 'remove-api-key' })
      .waitForReply();
    expect(removed.content).toContain('removed');
    // /say acknowledges before reading the store, so the refusal is a private follow-up.
    const handle = t.discord.slash({
      user: 'member',
      name: 'say',
      options: { text: 'Hello there, this is a test sentence.' },
    });
    await handle.waitFor((e) => e.kind === 'followUp');
    const [say] = handle.followUps();
    expect(say?.content).toContain('Ask a server admin');
    expect((say?.flags ?? 0) & EPHEMERAL).toBe(EPHEMERAL);
    await t.configureKey(USER_TWO.apiKey);
  });

  test('no key or token appears in any log line', () => {
    const all = t.logs.join('\n');
    expect(t.logs.length).toBeGreaterThan(5);
    for (const secret of [
      USER_ONE.apiKey,
      USER_TWO.apiKey,
      'adx_wrong_key_000000',
      t.discord.token,
    ]) {
      expect(all).not.toContain(secret);
    }
  });
});
