/** `/config forget` end to end: the question, cancel keeps everything, confirm deletes and reports. */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { translatorFor } from '../../src/i18n/index.ts';
import { USER_ONE } from '../../tools/emulator/index.ts';
import { startTestBot, type TestBot } from '../support/bot-harness.ts';
import { populateServer, recordsOf, storeSnapshot } from '../support/server-data.ts';

const EPHEMERAL = 64;

let t: TestBot;
beforeAll(async () => {
  t = await startTestBot({ env: { TTS_CACHE_TTL: '1h' } });
  await populateServer(t, t.discord.guild, USER_ONE.apiKey);
}, 60_000);
afterAll(async () => {
  await t?.stop();
});

/** Asks `/config forget` and resolves with the private question. */
async function ask(locale?: string) {
  const handle = t.discord.slash({
    user: 'admin',
    name: 'config',
    subcommand: 'forget',
    ...(locale === undefined ? {} : { locale }),
  });
  return handle.waitForReply();
}

describe('/config forget', () => {
  test('asks first, privately, with a confirm and a cancel button; cancel keeps everything', async () => {
    const before = await storeSnapshot(t.bot.store);
    const question = await ask();
    expect((question.flags ?? 0) & EPHEMERAL).toBe(EPHEMERAL);
    expect(question.content).toContain('deletes everything');
    const cancel = t.discord.clickButton({
      user: 'admin',
      message: question,
      customId: 'config:forget:cancel',
    });
    await cancel.waitFor((event) => event.kind === 'callback');
    expect(t.discord.message(question.id)?.content).toBe('Nothing was deleted.');
    expect(t.discord.message(question.id)?.components).toEqual([]);
    expect(await storeSnapshot(t.bot.store)).toEqual(before);
  });

  test('a member without Manage Server cannot confirm', async () => {
    const question = await ask();
    const click = t.discord.clickButton({
      user: 'member',
      message: question,
      customId: 'config:forget:confirm',
    });
    const refusal = await click.waitForReply();
    expect(refusal.content).toContain('Manage Server');
    expect(await t.bot.services.apiKeys.get(t.discord.guild.id)).toBe(USER_ONE.apiKey);
  });

  test('confirm deletes every record of the server and says what, in the member’s language', async () => {
    const { id } = t.discord.guild;
    const before = await storeSnapshot(t.bot.store);
    expect(recordsOf(before, id, USER_ONE.apiKey)).toHaveLength(6);
    const question = await ask('de');
    expect(question.content).toBe(translatorFor('de').t('config.forget_question'));
    const confirm = t.discord.clickButton({
      user: 'admin',
      message: question,
      customId: 'config:forget:confirm',
      locale: 'de',
    });
    await confirm.waitFor((event) => event.kind === 'edit', 10_000);
    const report = t.discord.message(question.id);
    const { t: de } = translatorFor('de');
    expect(report?.content).toBe(
      [
        de('config.forget_done'),
        `• ${de('config.forget_item_key')}`,
        `• ${de('config.forget_item_settings')}`,
        `• ${de('config.forget_item_read_channels', { count: 1 })}`,
        `• ${de('config.forget_item_member_settings', { count: 1 })}`,
        `• ${de('config.forget_item_dictionary', { count: 1 })}`,
        `• ${de('config.forget_item_usage', { count: 1 })}`,
        `• ${de('config.forget_item_previews', { count: 1 })}`,
        `• ${de('config.forget_item_speech', { count: 2 })}`,
      ].join('\n'),
    );
    expect(report?.components).toEqual([]);
    expect(recordsOf(await storeSnapshot(t.bot.store), id, USER_ONE.apiKey)).toEqual([]);
    expect(JSON.stringify(report)).not.toContain(USER_ONE.apiKey);
    // Forgotten means unconfigured: /config show starts from nothing.
    const show = await t.discord
      .slash({ user: 'admin', name: 'config', subcommand: 'show' })
      .waitForReply();
    expect(show.content).toContain('not set');
    // Asked again, there is nothing left.
    const again = await ask();
    const second = t.discord.clickButton({
      user: 'admin',
      message: again,
      customId: 'config:forget:confirm',
    });
    await second.waitFor((event) => event.kind === 'edit', 10_000);
    expect(t.discord.message(again.id)?.content).toBe(
      'The bot kept nothing for this server: there was nothing to delete.',
    );
  });
});
