import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { USER_ONE } from '../../tools/emulator/index.ts';
import { startTestBot, type TestBot } from '../support/bot-harness.ts';

/** A cloned voice whose id and name try to break out of the reply's markdown. */
const EVIL_ID = 'adv_x`**pwn**`<@&1>';
const EVIL_NAME = '**Boss** @everyone <@123> [site](https://evil.example)';

let t: TestBot;
beforeAll(async () => {
  t = await startTestBot({
    emulator: {
      users: [
        {
          ...USER_ONE,
          customVoices: [
            {
              voice_id: EVIL_ID,
              name: EVIL_NAME,
              gender: 'Male',
              accent: 'Custom',
              free: false,
              description: 'User cloned voice',
            },
          ],
        },
      ],
    },
  });
  await t.configureKey(USER_ONE.apiKey);
});
afterAll(async () => {
  await t?.stop();
});

/** True when `text` shows `EVIL_NAME` only escaped: no raw mention, ping, link or bold. */
function expectInert(text: string): void {
  expect(text).not.toContain('@everyone');
  expect(text).not.toContain('<@123>');
  expect(text).not.toContain('**Boss**');
  expect(text).not.toContain('](https://');
}

/** True when the voice id appears only inside one code span that nothing in it can end. */
function expectIdInCode(text: string): void {
  expect(text).toContain('`adv_xˋ**pwn**ˋ<\u200b@&1>`');
  expect(text).not.toContain(EVIL_ID);
}

describe('/voices gender and accent', () => {
  test('are offered from the key’s own voices, not guessed', async () => {
    const registered = t.discord.commands().global.find((c) => c.name === 'voices');
    for (const name of ['gender', 'accent'])
      expect(registered?.options?.find((o) => o.name === name)?.autocomplete, name).toBe(true);
    const accents = await t.discord.autocomplete({
      user: 'member',
      name: 'voices',
      options: { model: 'advance', accent: '' },
      focused: 'accent',
    });
    const values = accents.map((c) => (c as { value: string }).value);
    // This key's cloned voice brings `Custom`; each accent once.
    expect(values).toContain('Custom');
    expect(values.length).toBeGreaterThan(1);
    expect(new Set(values).size).toBe(values.length);
    const genders = await t.discord.autocomplete({
      user: 'member',
      name: 'voices',
      options: { model: 'advance', accent: 'Custom', gender: '' },
      focused: 'gender',
    });
    expect(genders).toEqual([{ name: 'Male', value: 'Male' }]);
    const typed = await t.discord.autocomplete({
      user: 'member',
      name: 'voices',
      options: { gender: 'fem' },
      focused: 'gender',
    });
    expect(typed).toEqual([{ name: 'Female', value: 'Female' }]);
  });
});

describe('voice ids and names from the API are shown escaped', () => {
  test('/voices lists a voice with a hostile id and name inertly', async () => {
    const reply = await t.discord
      .slash({ user: 'member', name: 'voices', options: { model: 'advance', accent: 'Custom' } })
      .waitFor((event) => event.kind === 'edit');
    const description = (reply as { data?: { embeds?: { description?: string }[] } }).data
      ?.embeds?.[0]?.description;
    expect(description, JSON.stringify(reply)).toBeDefined();
    expectInert(description ?? '');
    expectIdInCode(description ?? '');
  });

  test('/myvoice confirms the hostile voice with its name escaped', async () => {
    const reply = await t.discord
      .slash({ user: 'member', name: 'myvoice', options: { voice: EVIL_ID } })
      .waitForReply();
    expect(reply.content).toContain('Your default voice is now');
    expectInert(reply.content ?? '');
  });

  test('/config defaults shows the saved voice id inside a code span only', async () => {
    const reply = await t.discord
      .slash({
        user: 'admin',
        name: 'config',
        subcommand: 'defaults',
        options: { voice: EVIL_ID, model: 'advance' },
      })
      .waitForReply();
    expect(reply.content).toContain('Defaults saved');
    expectIdInCode(reply.content ?? '');
  });

  test('a voice a member typed that does not exist is echoed inside a code span only', async () => {
    const typed = 'nope`**x**` @everyone';
    const shown = 'There is no voice `nopeˋ**x**ˋ @\u200beveryone`';
    const config = await t.discord
      .slash({ user: 'admin', name: 'config', subcommand: 'defaults', options: { voice: typed } })
      .waitForReply();
    expect(config.content).toContain(shown);
    const say = await t.discord
      .slash({
        user: 'member',
        name: 'say',
        options: { voice: typed, text: 'Hello there, this is a test sentence.', output: 'file' },
      })
      .waitFor((event) => event.kind === 'followUp');
    expect(JSON.stringify(say)).toContain(shown);
  });
});
