import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { LANGUAGES } from '../../src/i18n/index.ts';
import { USER_ONE } from '../../tools/emulator/index.ts';
import type { Json } from '../fake-discord/types.ts';
import { api } from '../support/api-under-test.ts';
import { startTestBot, type TestBot } from '../support/bot-harness.ts';

let t: TestBot;
beforeAll(async () => {
  t = await startTestBot();
  await t.configureKey(USER_ONE.apiKey);
});
afterAll(async () => {
  await t?.stop();
});

const EPHEMERAL = 64;
const TEXT = 'Hallo zusammen, hier spricht der Vorlesebot.';

describe('replies follow interaction.locale', () => {
  test('/say with locale "de": every progress edit is German, then the audio is attached', async () => {
    const handle = t.discord.slash({
      user: 'member',
      name: 'say',
      options: { text: TEXT, voice: 'af_3kbq21leo', output: 'file' },
      locale: 'de',
    });
    await handle.waitFor((e) => e.kind === 'edit' && (handle.files().length ?? 0) > 0, 20_000);
    const edits = handle.events.filter((e) => e.kind === 'edit').map((e) => JSON.stringify(e));
    expect(
      edits.some((edit) => /Warte auf einen freien|Erzeuge mit|Lade die Audiodatei/.test(edit)),
    ).toBe(true);
    expect(edits.join('\n')).not.toMatch(/Waiting for|Generating with|Fetching the audio/);
    expect(handle.files()).toHaveLength(1);
  });

  test('/say refused in German, ephemerally', async () => {
    const handle = t.discord.slash({
      user: 'member',
      name: 'say',
      // v2 refuses a text under 30 characters; v3 takes one character, so there a voice the
      // model does not have is what is refused.
      options: api.version === 'v3' ? { text: 'kurz', voice: 'no_such_voice' } : { text: 'kurz' },
      locale: 'de',
    });
    await handle.waitFor((e) => (e.kind === 'callback' && e.type === 4) || e.kind === 'delete');
    // Refused at once, or after the public defer: then privately, and the public reply is gone.
    const reply = handle.callback()?.type === 4 ? handle.lastMessage() : handle.followUps()[0];
    expect(reply?.content).toMatch(
      api.version === 'v3'
        ? /^Es gibt keine Stimme `no_such_voice` für das Modell base\./
        : /^Der Text ist zu kurz: Der TTS-Dienst braucht mindestens 30 Zeichen \(dieser hat 4\)\.$/,
    );
    expect((reply?.flags ?? 0) & EPHEMERAL).toBe(EPHEMERAL);
  });

  test('/config show with locale "de" is German', async () => {
    const reply = await t.discord
      .slash({ user: 'admin', name: 'config', subcommand: 'show', locale: 'de' })
      .waitForReply();
    expect(reply.content).toContain(`**API-Schlüssel:** \`adx…${USER_ONE.apiKey.slice(-4)}\``);
    expect(reply.content).toContain('**Standardwerte:** Stimme nicht festgelegt, Modell base');
    // The key's budget as the bot counts it: v2's generations, the daily limit its longest
    // window; v3's requests of every kind against its one allowance a minute (no daily one).
    const daily = api.defaultDaily;
    expect(reply.content).toMatch(
      daily === undefined
        ? new RegExp(`\\*\\*API-Anfragen:\\*\\* \\d+ von ${api.defaultPerMinute} pro 1 Minute`)
        : new RegExp(`\\*\\*Generierungen:\\*\\* \\d+ von ${daily} pro 1 Tag`),
    );
  });

  test.each([
    ['fr', 'Seuls les membres avec la permission **Gérer le serveur**'],
    ['es-ES', 'Solo los miembros con el permiso **Gestionar servidor**'],
    ['ja', '**サーバー管理** 権限を持つメンバーだけ'],
    ['pt-BR', 'Only members with the **Manage Server** permission'],
  ])('an error in %s', async (locale, text) => {
    const reply = await t.discord
      .slash({ user: 'member', name: 'config', subcommand: 'show', force: true, locale })
      .waitForReply();
    expect(reply.content).toContain(text);
  });

  test('the /config api-key modal is German for a German admin', async () => {
    const modal = await t.discord
      .slash({ user: 'admin', name: 'config', subcommand: 'api-key', locale: 'de' })
      .waitForModal();
    expect(modal.title).toBe('Audixa-API-Schlüssel');
  });
});

describe('registered commands', () => {
  /** Every object with a description in a command definition: the command, subcommands, options. */
  function described(node: Json, path: string): [string, Json][] {
    const children = Array.isArray(node.options) ? (node.options as Json[]) : [];
    return [
      [path, node],
      ...children.flatMap((child) => described(child, `${path} ${String(child.name)}`)),
    ];
  }

  test('names stay English; every description is localized in every language', () => {
    const { global } = t.discord.commands();
    expect(global.length).toBeGreaterThan(5);
    for (const command of global) {
      for (const [path, node] of described(command as unknown as Json, String(command.name))) {
        expect(node.name_localizations ?? null, path).toBeNull();
        const localized = (node.description_localizations ?? {}) as Record<string, string>;
        expect(Object.keys(localized).sort(), path).toEqual(
          LANGUAGES.filter((l) => l !== 'en').sort(),
        );
        for (const text of Object.values(localized)) {
          expect(text.length, path).toBeGreaterThan(0);
          expect(text.length, path).toBeLessThanOrEqual(100);
          expect(text, path).not.toBe(node.description);
        }
      }
    }
  });
});
