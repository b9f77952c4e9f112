/**
 * Issue 31 end to end on v3 (the only API that takes a language): the real bot, the fake
 * Discord and Twitch, the emulator recording each generation's `language_code`. The server's
 * language and a member's are set by their commands; `/say`, a Discord chat line and Twitch
 * lines each reach the API with the code of their own language, or the fallback's.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { USER_ONE } from '../../tools/emulator/index.ts';
import { FakeTwitch } from '../fake-twitch/index.ts';
import { apiOf } from '../support/api-under-test.ts';
import { startTestBot, type TestBot } from '../support/bot-harness.ts';
import { until } from '../twitch/support.ts';
import { eventually } from '../voice/support.ts';

const v3 = apiOf('v3');
let t: TestBot;
let twitch: FakeTwitch;
const CHANNEL = 'langstream';
const chat = () => t.discord.guild.channels.chat ?? '';

beforeAll(async () => {
  twitch = await FakeTwitch.start();
  t = await startTestBot({
    api: 'v3',
    env: { TWITCH_CHAT_URL: twitch.url },
    discord: { extraUsers: ['bobby'], guilds: [{ textChannels: ['general', 'chat'] }] },
  });
  await t.configureKey(USER_ONE.apiKey);
});
afterAll(async () => {
  await t?.stop();
  await twitch?.close();
});

/** The `language_code` of the generation whose text matches, once it was asked for ('' for none). */
async function codeOf(pattern: RegExp): Promise<string> {
  const find = () =>
    v3
      .generated(t.emulator)
      .map((id) => t.emulator.v3.generation(id))
      .find((gen) => gen !== undefined && pattern.test(gen.text));
  await eventually(`a generation of ${pattern}`, () => find() !== undefined, 20_000);
  return find()?.languageCode ?? '';
}

/** Texts of the generations asked for so far. */
const texts = () => v3.generated(t.emulator).map((id) => t.emulator.v3.generation(id)?.text ?? '');

function slash(name: string, options: Record<string, string>, subcommand?: string) {
  return t.discord.slash({
    user: 'admin',
    name,
    ...(subcommand === undefined ? {} : { subcommand }),
    options,
  });
}

describe('speech language on v3', () => {
  test('/config defaults language takes only what the model speaks, and saves it', async () => {
    const refused = await slash('config', { language: 'de' }, 'defaults').waitForReply();
    expect(refused.content).toContain('The `base` model cannot speak');
    const saved = await slash('config', { language: 'fr' }, 'defaults').waitForReply();
    expect(saved.content).toContain(', language fr');
    const stored = await t.bot.services.settings.guild(t.discord.guild.id);
    expect(stored.defaults.language).toBe('fr');
  });

  test('/say is read in the language of its text', async () => {
    await slash('say', {
      text: 'good morning everyone, how was your weekend?',
      output: 'file',
    }).waitForReply(20_000);
    expect(await codeOf(/good morning everyone/)).toBe('a');
    await slash('say', {
      text: 'qué buena jugada, no me lo esperaba para nada',
      output: 'file',
    }).waitForReply(20_000);
    expect(await codeOf(/qué buena jugada/)).toBe('e');
    // German is not Base's: the server's language (French), not skipped.
    await slash('say', {
      text: 'ich muss jetzt leider los, bis morgen zusammen',
      output: 'file',
    }).waitForReply(20_000);
    expect(await codeOf(/ich muss jetzt leider los/)).toBe('f');
  });

  test('/myvoice language sets the member’s own, used for their short lines', async () => {
    const set = await slash('myvoice', { language: 'es' }).waitForReply();
    expect(set.content).toContain('Your speech language is now **Spanish (es)**');
    expect((await t.bot.services.settings.user(t.discord.users.admin?.id ?? '')).language).toBe(
      'es',
    );
  });

  test('chat lines: each in its language, short ones in the member’s, one language per turn', async () => {
    await slash('config', { channel: 'chat' }, 'read-channel add').waitForReply();
    for (const user of ['admin', 'bobby'])
      t.discord.moveMember({ userId: user, channelId: t.discord.guild.voiceChannelId });
    const join = await t.discord.slash({ user: 'admin', name: 'join' }).waitForReply(15_000);
    expect(join.content).toContain('Joined');
    t.discord.sendMessage({ user: 'admin', channelId: chat(), content: 'lol' });
    // The words around a line are in its language: no English "said" for a Spanish voice.
    expect(await codeOf(/dijo: lol/)).toBe('e');
    // Two languages back to back from one author: two turns, never one merged text.
    t.discord.sendMessage({
      user: 'bobby',
      channelId: chat(),
      content: 'je reviens dans cinq minutes les amis',
    });
    t.discord.sendMessage({
      user: 'bobby',
      channelId: chat(),
      content: 'ありがとう、助かりました',
    });
    expect(await codeOf(/a dit : je reviens dans cinq/)).toBe('f');
    expect(await codeOf(/ありがとう/)).toBe('j');
    expect(texts().filter((text) => /je reviens/.test(text) && /ありがとう/.test(text))).toEqual(
      [],
    );
  });

  test('Twitch lines: each in its language', async () => {
    await slash('config', { channel: CHANNEL }, 'twitch add').waitForReply();
    await until(() => twitch.joined(CHANNEL));
    twitch.post(CHANNEL, {
      id: 'tw-1',
      login: 'ronni_tv',
      userId: '9001',
      text: 'mañana empezamos a las ocho en punto',
    });
    expect(await codeOf(/mañana empezamos/)).toBe('e');
    twitch.post(CHANNEL, {
      id: 'tw-2',
      login: 'jp_viewer',
      userId: '9002',
      text: 'サーバーがまた満員です',
    });
    expect(await codeOf(/満員/)).toBe('j');
  });
});
