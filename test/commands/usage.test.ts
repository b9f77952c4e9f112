/**
 * `/usage` and `/say`'s quota line end to end, with either API version. With v2 the key has a
 * daily limit of 3, so the third `/say` leaves less than 10% of it and `/usage` counts the
 * 24-hour window down; v3 has no daily allowance (one `request` allowance a minute), so no quota
 * line and `/usage` counts the server's generations today from the usage ledger. The member's
 * daily share, set by a manager, applies with both.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { USER_ONE } from '../../tools/emulator/index.ts';
import type { Json } from '../fake-discord/types.ts';
import { api } from '../support/api-under-test.ts';
import { startTestBot, type TestBot } from '../support/bot-harness.ts';

/** The key's daily limit under `api.dailyEnv(3)`: 3 with v2, none with v3. */
const DAILY = api.dailyUnder(3);

let t: TestBot;
beforeAll(async () => {
  t = await startTestBot({ env: api.dailyEnv(3) });
  await t.configureKey(USER_ONE.apiKey);
  // Each member may make two a day (the default would be a fifth of 3 with v2: one; none with v3).
  await t.discord
    .slash({ user: 'admin', name: 'config', subcommand: 'limits', options: { 'member-daily': 2 } })
    .waitForReply();
});
afterAll(async () => {
  await t?.stop();
});

const EPHEMERAL = 64;
const TEXT = 'Hello everyone, this is the text to speech bot speaking.';

async function say(user: string, locale?: string) {
  const handle = t.discord.slash({
    user,
    name: 'say',
    options: { text: TEXT, voice: 'af_3kbq21leo', output: 'file' },
    ...(locale === undefined ? {} : { locale }),
  });
  await handle.waitFor((e) => e.kind === 'edit' && handle.files().length > 0, 20_000);
  return handle.lastMessage();
}

/** The lines of a message that warn of the quota. */
function warnings(message: { content?: string } | undefined): string[] {
  return (message?.content ?? '').split('\n').filter((line) => line.startsWith('⚠️'));
}

/** What `/usage` says of the server once 3 generations used it up: v2's window, v3's day. */
/** The money lines (issue 31): v3 bills each generation; v2 says it bills no money. */
const MONEY =
  api.version === 'v3'
    ? [
        expect.stringMatching(
          /^\*\*Spent today \(UTC\):\*\* \$0\.\d+ · \*\*last 30 days:\*\* \$0\.\d+$/,
        ),
        expect.stringMatching(/^\*\*You spent today:\*\* \$0\.\d+$/),
      ]
    : ['No money figures: this key’s API (v2) bills no money per generation.'];
/** What v3 adds after a figure: its money. */
const SPENT = api.version === 'v3' ? ' · \\$0\\.\\d+' : '';

const SERVER_AFTER_THREE =
  DAILY === undefined
    ? ['**This server today (UTC):** 3 generations']
    : [
        `**This server, last 24 hours:** 3 of ${DAILY} generations (${DAILY - 3} left)`,
        expect.stringMatching(/^The daily quota is used up; it frees up <t:\d+:R>\.$/),
      ];

function embedOf(message: { embeds?: unknown } | undefined): Json {
  const [embed] = (message?.embeds ?? []) as Json[];
  if (embed === undefined) throw new Error('no embed');
  return embed;
}

describe('/usage says what the API counts', () => {
  test('a daily quota on v2, money against a daily budget on v3 (which has no quota)', async () => {
    const usage = t.discord.commands().global.find((c) => c.name === 'usage');
    if (api.version === 'v3') {
      expect(usage?.description).toContain('cost');
      expect(usage?.description).not.toContain('quota');
    } else expect(usage?.description).toContain('daily TTS quota');
    const help = await t.discord.slash({ user: 'admin', name: 'help' }).waitForReply();
    expect(JSON.stringify(help.embeds)).toContain(`\`/usage\` — ${usage?.description}`);
  });
});

describe('/usage and the quota line of /say', () => {
  test('/say adds no quota line while plenty is left, then one when less than 10% is (never without a daily limit)', async () => {
    expect(warnings(await say('member'))).toEqual([]);
    expect(warnings(await say('member'))).toEqual([]);
    expect(warnings(await say('admin', 'de'))).toEqual(
      DAILY === undefined
        ? []
        : [
            `⚠️ Nur noch 0 von ${DAILY} Generierungen sind für diesen Server im 24-Stunden-Fenster übrig.`,
          ],
    );
  });

  test('a member sees the server’s use, their own and when it frees up, privately and without history', async () => {
    const handle = t.discord.slash({ user: 'member', name: 'usage' });
    const reply = await handle.waitForReply();
    expect((reply.flags ?? 0) & EPHEMERAL).toBe(EPHEMERAL);
    const embed = embedOf(reply);
    expect(String(embed.description).split('\n')).toEqual([
      ...SERVER_AFTER_THREE,
      '**You today:** 2 of your daily share of 2',
      expect.stringMatching(/^Your daily share is used up; it starts again <t:\d+:R>\.$/),
      ...MONEY,
    ]);
    expect(embed.fields ?? []).toEqual([]);
    expect(handle.files()).toEqual([]);
  });

  test('a manager also gets 14 days, the top members and the chart as a PNG with alt text', async () => {
    const handle = t.discord.slash({ user: 'admin', name: 'usage' });
    const reply = await handle.waitForReply();
    const embed = embedOf(reply);
    expect(String(embed.description).split('\n')).toEqual([
      ...SERVER_AFTER_THREE,
      '**You today:** 1 generation',
      '**Per-member share:** 2 generations per member per day (members with Manage Server are exempt).',
      ...MONEY,
    ]);
    const fields = (embed.fields ?? []) as Json[];
    expect(fields.map((f) => f.name)).toEqual(['Last 14 days (UTC)', 'Top members']);
    const days = String(fields[0]?.value).split('\n');
    expect(days).toHaveLength(14);
    expect(days.at(-1)).toMatch(new RegExp(`^\`\\d\\d-\\d\\d\` 3${SPENT}$`));
    const ids = t.discord.users;
    expect(fields[1]?.value).toMatch(
      new RegExp(`^1\\. <@${ids.member?.id}> — 2${SPENT}\n2\\. <@${ids.admin?.id}> — 1${SPENT}$`),
    );
    expect((embed.image as Json | undefined)?.url).toBe('attachment://usage.png');
    const [file] = handle.files();
    expect(file?.filename).toBe('usage.png');
    expect(file?.data.subarray(1, 4).toString('ascii')).toBe('PNG');
    expect(file?.data.readUInt32BE(16)).toBe(720);
    const [attachment] = (reply.attachments ?? []) as Json[];
    // The daily limit, when the key has one, is the chart's dashed line.
    const limitLine = DAILY === undefined ? '' : `; the dashed line is the daily limit of ${DAILY}`;
    expect(attachment?.description).toMatch(
      new RegExp(
        `^Bar chart of this server’s TTS generations over the last 14 days, today last${limitLine}\\. .*: 3${api.version === 'v3' ? ' \\(\\$0\\.\\d+\\)' : ''}$`,
      ),
    );
  });

  test('in Japanese', async () => {
    const reply = await t.discord
      .slash({ user: 'member', name: 'usage', locale: 'ja' })
      .waitForReply();
    expect(embedOf(reply).title).toBe('TTS の使用量');
    expect(embedOf(reply).description).toContain('**あなた（今日）:** 1 日の持ち分 2 回中 2 回');
  });
});
