import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { PREVIEW_TEXT } from '../../src/preview/index.ts';
import { USER_ONE } from '../../tools/emulator/index.ts';
import type { Json } from '../fake-discord/types.ts';
import { api } from '../support/api-under-test.ts';
import { startTestBot, type TestBot } from '../support/bot-harness.ts';
import { eventually, wavDurationMs } from '../voice/support.ts';

let t: TestBot;
beforeAll(async () => {
  t = await startTestBot();
  await t.configureKey(USER_ONE.apiKey);
});
afterAll(async () => {
  await t?.stop();
});

const EPHEMERAL = 64;
const submits = () => t.emulator.counts()[api.submit]?.total ?? 0;

/** The generation the emulator made last, by the id in its last status poll. */
function lastGenerationId(): string {
  return api.polled(t.emulator).at(-1) ?? '';
}

async function preview(voice: string, user = 'member', locale?: string) {
  const handle = t.discord.slash({
    user,
    name: 'preview',
    options: { voice },
    ...(locale === undefined ? {} : { locale }),
  });
  const reply = await handle.waitForReply(20_000);
  return { handle, reply };
}

describe('/preview', () => {
  test('the first preview of a voice generates the fixed sample once and attaches it, privately', async () => {
    const before = submits();
    const { handle, reply } = await preview('af_3kbq21leo');
    expect(submits()).toBe(before + 1);
    const id = lastGenerationId();
    expect(api.textOf(t.emulator, id)).toBe(PREVIEW_TEXT);
    const [file] = handle.files();
    expect(file?.filename).toBe('preview-af_3kbq21leo.wav');
    expect(file?.data.equals(t.emulator.audioOf(id) ?? Buffer.alloc(0))).toBe(true);
    expect((reply.flags ?? 0) & EPHEMERAL).toBe(EPHEMERAL);
    expect(reply.content).toContain('🔊 Preview of **Lily · Female · American**');
    expect(reply.content).toContain('Made once for this server’s key');
  });

  test('later previews of that voice, by anyone, cost no generation and play the same bytes', async () => {
    const first = await preview('af_3kbq21leo');
    const before = submits();
    const again = await preview('af_3kbq21leo', 'admin', 'fr');
    expect(submits()).toBe(before);
    expect(again.reply.content).toContain('aucune génération utilisée');
    expect(
      again.handle.files()[0]?.data.equals(first.handle.files()[0]?.data ?? Buffer.alloc(0)),
    ).toBe(true);
  });

  test('an unknown voice is refused before any generation', async () => {
    const before = submits();
    const { reply } = await preview('no_such_voice');
    expect(reply.content).toContain('There is no voice `no_such_voice`');
    expect(submits()).toBe(before);
  });

  test('/voices offers the page’s voices in a menu; picking one answers with its preview', async () => {
    const list = await t.discord.slash({ user: 'member', name: 'voices' }).waitForReply();
    const rows = (list.components ?? []) as Json[];
    const menu = rows.flatMap((row) => (row.components ?? []) as Json[]).find((c) => c.type === 3);
    expect(menu?.custom_id).toBe('voices:preview:base');
    const options = (menu?.options ?? []) as Json[];
    expect(options.length).toBeGreaterThan(1);
    expect(options.length).toBeLessThanOrEqual(10);
    const other = options.find((o) => o.value !== 'af_3kbq21leo');
    const before = submits();
    const click = t.discord.clickButton({
      user: 'member',
      message: list,
      customId: 'voices:preview:base',
      values: [String(other?.value)],
    });
    const reply = await click.waitForReply(20_000);
    expect(submits()).toBe(before + 1);
    expect((reply.flags ?? 0) & EPHEMERAL).toBe(EPHEMERAL);
    expect(reply.content).toContain(`Preview of **${String(other?.label)}`);
    expect(click.files()).toHaveLength(1);
    const second = await t.discord
      .clickButton({
        user: 'admin',
        message: list,
        customId: 'voices:preview:base',
        values: [String(other?.value)],
      })
      .waitForReply(20_000);
    expect(second.content).toContain('From the store');
    expect(submits()).toBe(before + 1);
  });

  test('when the bot is in the member’s voice channel, the stored sample is played there, without a generation', async () => {
    const first = await preview('af_3kbq21leo');
    const sample = first.handle.files()[0]?.data ?? Buffer.alloc(0);
    const channel = t.discord.guild.voiceChannelId;
    t.discord.moveMember({ userId: 'member', channelId: channel });
    await eventually('the bot sees the member', () => t.discord.voiceStates().length === 1);
    const join = await t.discord.slash({ user: 'member', name: 'join' }).waitForReply(15_000);
    expect(join.content).toContain('Joined');
    t.voiceServer.reset(t.discord.guild.id);
    const before = submits();
    const { handle, reply } = await preview('af_3kbq21leo');
    expect(reply.content).toContain(
      `🔊 Playing the preview of **Lily · Female · American** in <#${channel}>`,
    );
    expect(handle.files()).toEqual([]);
    const heard = await t.voiceServer.waitForAudio(t.discord.guild.id, { timeoutMs: 15_000 });
    const expectedMs = wavDurationMs(sample);
    expect(Math.abs(heard.durationMs - expectedMs) / expectedMs).toBeLessThan(0.1);
    expect(submits()).toBe(before);
  });

  test('a sample not stored yet counts against the member’s daily share: refused once it is used up; stored ones still play', async () => {
    const limits = (memberDaily: number) =>
      t.discord
        .slash({
          user: 'admin',
          name: 'config',
          subcommand: 'limits',
          options: { 'member-daily': memberDaily },
        })
        .waitForReply();
    await limits(1);
    try {
      // The member's share of 1 is used: the earlier tests' first sample was theirs.
      const before = submits();
      const { reply } = await preview('bm_5tyh0q2xw');
      expect(reply.content).toContain('used your share of this server’s generations for today');
      expect(submits()).toBe(before);
      // A stored sample costs nothing: still offered.
      const stored = await preview('af_3kbq21leo');
      expect(stored.reply.content).toMatch(/preview of \*\*Lily/i);
      // Manage Server is exempt.
      const admin = await preview('bm_5tyh0q2xw', 'admin');
      expect(admin.reply.content).toMatch(/preview of \*\*/i);
      expect(submits()).toBe(before + 1);
    } finally {
      await limits(0);
    }
  });
});
