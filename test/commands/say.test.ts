import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { USER_ONE, USER_POOR, USER_TWO } from '../../tools/emulator/index.ts';
import { api } from '../support/api-under-test.ts';
import { startTestBot, type TestBot } from '../support/bot-harness.ts';

let t: TestBot;
beforeAll(async () => {
  t = await startTestBot({ env: { TTS_POLL_DEADLINE: '3s' } });
  await t.configureKey(USER_ONE.apiKey);
});
afterAll(async () => {
  await t?.stop();
});

const TEXT = 'Hello everyone, this is the text to speech bot speaking.';
const EPHEMERAL = 64;

function say(options: Record<string, string | number>, user = 'member') {
  return t.discord.slash({ user, name: 'say', options: { text: TEXT, ...options } });
}

/** The generation the bot polled last (its id is in the status query), and the text it spoke. */
function lastGeneration() {
  const id = api.polled(t.emulator).at(-1) ?? '';
  return { id, text: api.textOf(t.emulator, id) };
}

/** Waits for the reply to reach its final state (an attachment, or a message that is not progress). */
async function finalReply(handle: ReturnType<typeof say>) {
  await handle.waitFor((e) => e.kind === 'edit' && !/⏳|🎙️|📥/.test(JSON.stringify(e)), 20_000);
  const message = handle.lastMessage();
  if (message === undefined) throw new Error('no reply');
  return message;
}

describe('/say with a file', () => {
  test('defers, then attaches audio whose bytes equal the emulator’s, with voice, model and duration', async () => {
    const handle = say({ voice: 'af_3kbq21leo' });
    const reply = await finalReply(handle);
    expect(handle.callback()?.type).toBe(5);
    const [file] = handle.files();
    expect(file?.filename).toMatch(/^speech-[\w-]+\.wav$/);
    expect(file?.contentType).toMatch(/wav/);
    const { id } = lastGeneration();
    expect(file?.filename).toContain(id.slice(-8));
    expect(file?.data.equals(t.emulator.audioOf(id) ?? Buffer.alloc(0))).toBe(true);
    expect(reply.content).toContain('**Lily** · base');
    expect(reply.content).toMatch(/· \d+ s$/);
  });

  test('mentions in the text are spoken as names and echoed inert', async () => {
    const handle = say({
      text: `Hey <@${t.discord.users.admin?.id}> and @everyone, listen to this message please.`,
    });
    const reply = await finalReply(handle);
    expect(reply.content).not.toMatch(/<@\d+>/);
    expect(reply.content).not.toContain('@everyone');
    const spoken = lastGeneration().text ?? '';
    expect(spoken).toContain('Hey admin and everyone');
    expect(spoken).not.toContain('<@');
  });

  const refusals: [Record<string, string>, string][] = [
    [{ voice: 'no_such_voice' }, 'There is no voice'],
    [{ output: 'voice' }, 'not in a voice channel'],
  ];
  // v3 takes a text of one character: only v2 refuses a short one. v3 has no emotions: `/say`
  // does not offer the option there (a stale client's emotion is refused, see service.test).
  if (api.version === 'v2')
    refusals.unshift(
      [{ text: 'too short' }, 'too short'],
      [{ voice: 'af_3kbq21leo', emotion: 'happy' }, 'only with the `advance` model'],
    );

  test('/say offers `emotion` only where the API has emotions (not on v3)', () => {
    const registered = t.discord.commands().global.find((c) => c.name === 'say');
    const names = (registered?.options ?? []).map((o) => o.name);
    expect(names).toEqual(expect.arrayContaining(['text', 'voice', 'model', 'speed', 'output']));
    if (api.version === 'v3') expect(names).not.toContain('emotion');
    else expect(names).toContain('emotion');
  });
  test.each(refusals)(
    '%j is refused before any generation, ephemerally: %s',
    async (options, message) => {
      const before = t.emulator.counts()[api.submit]?.total ?? 0;
      const handle = say(options);
      await handle.waitFor((e) => (e.kind === 'callback' && e.type === 4) || e.kind === 'delete');
      // Refused at once, or after the public defer: then privately, and the public reply is gone.
      const reply = handle.callback()?.type === 4 ? handle.lastMessage() : handle.followUps()[0];
      expect(reply?.content).toContain(message);
      expect((reply?.flags ?? 0) & EPHEMERAL).toBe(EPHEMERAL);
      expect(t.emulator.counts()[api.submit]?.total ?? 0).toBe(before);
    },
  );

  // v3 takes speed on Base only: asking for it is refused, not ignored.
  test
    .runIf(api.version === 'v3')
    .each([[{ model: 'advance', speed: 1.5 }, 'speed works only with the `base` model']])(
    'v3: %j is refused before any generation: %s',
    async (options, message) => {
      const before = t.emulator.counts()[api.submit]?.total ?? 0;
      const handle = say(options);
      await handle.waitFor((e) => (e.kind === 'callback' && e.type === 4) || e.kind === 'delete');
      const reply = handle.callback()?.type === 4 ? handle.lastMessage() : handle.followUps()[0];
      expect(reply?.content).toContain(message);
      expect(t.emulator.counts()[api.submit]?.total ?? 0).toBe(before);
    },
  );

  test.each([
    [
      { kind: 'fail', error: 'voice engine crashed' } as const,
      'could not generate this speech',
      'voice engine crashed',
    ],
    [{ kind: 'never-complete' } as const, 'taking too long', 'generation `'],
    [{ kind: 'http-error', endpoint: api.submit, status: 500 } as const, 'internal error', ''],
    [{ kind: 'media-404' } as const, 'could not find that', ''],
  ])('API failure %j shows a specific message', async (fault, message, detail) => {
    t.emulator.fault(fault);
    const reply = await finalReply(say({}));
    t.emulator.clearFaults();
    expect(reply.content).toContain(message);
    expect(reply.content).toContain(detail);
    expect(reply.content).not.toContain('incident');
  });

  test('a failure is not overwritten later by a progress edit that was still scheduled', async () => {
    t.emulator.fault({ kind: 'fail', error: 'engine overheated' });
    const handle = say({});
    const reply = await finalReply(handle);
    t.emulator.clearFaults();
    expect(reply.content).toContain('engine overheated');
    // Longer than the 2.5 s between progress edits.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(handle.lastMessage()?.content).toContain('engine overheated');
  });

  test('a premium voice on a free plan and an exhausted balance say what to do', async () => {
    await t.configureKey(USER_TWO.apiKey);
    const premium = t.emulator.users.find((u) => u.userId === USER_TWO.userId);
    expect(premium).toBeDefined();
    const voices = await t.bot.services.tts.forKey(USER_TWO.apiKey).voices('base');
    const paid = voices.find((v) => !v.free);
    const reply = await finalReply(say({ voice: paid?.voiceId ?? '' }));
    expect(reply.content).toContain('only available on paid plans');
    await t.configureKey(USER_POOR.apiKey);
    const poor = await finalReply(say({ voice: 'af_3kbq21leo', text: TEXT.repeat(3) }));
    expect(poor.content).toContain('run out of credits');
    await t.configureKey(USER_ONE.apiKey);
  });

  test('an invalid key stored earlier is reported with the way out', async () => {
    await t.bot.services.apiKeys.set(t.discord.guild.id, 'adx_revoked_key_99999');
    const reply = await finalReply(say({}));
    expect(reply.content).toContain('rejected this server’s API key');
    expect(reply.content).toContain('/config api-key');
    await t.configureKey(USER_ONE.apiKey);
  });

  test('the emulator never answered 429 and nothing leaked to the logs', () => {
    for (const [endpoint, count] of Object.entries(t.emulator.counts())) {
      expect(count.byStatus[429], endpoint).toBeUndefined();
    }
    const all = t.logs.join('\n');
    for (const secret of [
      USER_ONE.apiKey,
      USER_TWO.apiKey,
      USER_POOR.apiKey,
      'adx_revoked_key_99999',
      t.discord.token,
    ]) {
      expect(all).not.toContain(secret);
    }
  });
});

describe('/voices and /myvoice', () => {
  test('/voices pages through the list with buttons', async () => {
    const handle = t.discord.slash({ user: 'member', name: 'voices', options: {} });
    const first = await handle.waitForReply();
    const embed = first.embeds?.[0] as
      | { title?: string; description?: string; footer?: { text?: string } }
      | undefined;
    expect(embed?.title).toBe('Voices for the base model');
    expect(embed?.footer?.text).toMatch(/^Page 1 of 2 · 12 voices$/);
    expect(embed?.description).toContain('**Lily** `af_3kbq21leo` · Female · American · free');
    const next = t.discord.clickButton({
      user: 'member',
      message: first,
      customId: 'voices:base:1::',
    });
    await next.waitFor((e) => e.kind === 'edit');
    expect(next.callback()?.type).toBe(6);
    const updated = t.discord.message(first.id);
    const footer = (updated?.embeds?.[0] as { footer?: { text?: string } } | undefined)?.footer;
    expect(footer?.text).toMatch(/^Page 2 of 2/);
  });

  test('/voices filters by accent and marks custom voices', async () => {
    await t.configureKey(USER_TWO.apiKey);
    const reply = await t.discord
      .slash({ user: 'member', name: 'voices', options: { model: 'advance', accent: 'Custom' } })
      .waitForReply();
    const embed = reply.embeds?.[0] as { description?: string } | undefined;
    expect(embed?.description).toContain('adv_user_clone_abc');
    expect(embed?.description).toContain('🧬 custom');
    await t.configureKey(USER_ONE.apiKey);
  });

  test('/myvoice sets the member’s default voice, used by /say', async () => {
    const set = await t.discord
      .slash({ user: 'member', name: 'myvoice', options: { voice: 'am_2riuownnf' } })
      .waitForReply();
    expect(set.content).toContain('Ethan');
    const reply = await finalReply(say({}));
    expect(reply.content).toContain('**Ethan**');
  });
});
