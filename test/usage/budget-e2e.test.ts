/**
 * What v3 costs, end to end (issue 31): the real bot on v3 against the fake Discord and the
 * emulator (a price per token of its own, so no figure here depends on the default). Every
 * generation's bill is in the usage ledger; a daily budget (`/config limits daily-budget`)
 * refuses `/say` past it and stops the chat reader (`/queue` says why); `/usage` shows the
 * money and what merging saved; the metrics count tokens and dollars by model only.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { expose, PrometheusMetrics } from '../../src/ops/index.ts';
import { CHAT_LEDGER_ID } from '../../src/store/index.ts';
import { USER_ONE } from '../../tools/emulator/index.ts';
import { apiOf } from '../support/api-under-test.ts';
import { startTestBot, type TestBot } from '../support/bot-harness.ts';
import { chatLookups, readChatInVoice } from '../support/chat-e2e.ts';
import { eventually } from '../voice/support.ts';

/** Ten times the emulator's default: a 40-character text (10 tokens) costs 100 micro-dollars. */
const USD_PER_TOKEN = 0.00001;
const v3 = apiOf('v3');
const metrics = new PrometheusMetrics({ defaultMetrics: false });
let t: TestBot;
const guildId = () => t.discord.guild.id;
const chat = () => t.discord.guild.channels.chat ?? '';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  t = await startTestBot({
    api: 'v3',
    metrics,
    emulator: { usdPerToken: USD_PER_TOKEN },
    // Every message held a moment for merging (a quiet chat's first is read at once otherwise),
    // so the two short lines below are one turn.
    env: { READER_HOLD_QUIET_CHAT: 'on' },
    discord: {
      extraUsers: ['bobby', 'carol'],
      guilds: [{ textChannels: ['general', 'chat'] }],
    },
  });
  // One voice for everyone, so authors' messages merge.
  const users = ['admin', 'member', 'bobby', 'carol'];
  await readChatInVoice(t, { users, reader: [{ voices: 'default' }] });
}, 60_000);
afterAll(async () => {
  await t?.stop();
});

const { config } = chatLookups(() => t, v3);

/** The server's day in the ledger. */
async function today() {
  const now = Date.now();
  const [day] = await t.bot.services.usage.days(guildId(), now, now);
  return day;
}

/** Micro-dollars the emulator billed the key for generations it did not give back. */
function billedMicros(): number {
  return t.emulator.v3
    .generationsOf(USER_ONE.userId)
    .filter((g) => g.status !== 'FAILED')
    .reduce((sum, g) => sum + Math.round(g.dollarCost * 1_000_000), 0);
}

function heard(): string[] {
  return v3.heard(t.emulator).map((id) => v3.textOf(t.emulator, id) ?? '');
}

/** Waits until nothing plays or waits and the ledger has every bill the emulator made. */
async function quiet(): Promise<void> {
  await eventually('the queue drains', () => t.bot.services.voice.queue(guildId()).length === 0);
  for (let i = 0; ((await today())?.spend?.micros ?? 0) !== billedMicros(); i++) {
    if (i > 100) throw new Error('the ledger never caught up with the emulator’s bills');
    await sleep(100);
  }
}

/** `/say` by the member: its refusal's text, or undefined once it was accepted. */
async function say(text: string): Promise<string | undefined> {
  const handle = t.discord.slash({
    user: 'member',
    name: 'say',
    options: { text, output: 'voice' },
  });
  await handle.waitFor((e) => e.kind === 'edit' || e.kind === 'delete', 15_000);
  return handle.followUps()[0]?.content ?? undefined;
}

describe('v3 money', () => {
  test('every generation’s bill is in the ledger (the chat apart), and merging short lines saves', async () => {
    t.discord.sendMessage({ user: 'bobby', channelId: chat(), content: 'hi' });
    t.discord.sendMessage({ user: 'carol', channelId: chat(), content: 'yo' });
    await eventually('the chat is heard', () => heard().some((text) => /yo\.$/.test(text)));
    await quiet();
    const day = await today();
    expect(day?.spend?.micros).toBe(billedMicros());
    expect(day?.spend?.micros).toBeGreaterThan(0);
    // "bobby said hi." and "carol said yo." are billed as 30 characters each (8 tokens): together,
    // once (29 characters, 8 tokens), so merging saved 8 tokens.
    const merged = heard().find((text) => /hi\..*yo\.$/.test(text));
    expect(merged).toBe('bobby said hi. carol said yo.');
    expect(day?.spend?.members[CHAT_LEDGER_ID]).toBe(8 * 10);
    expect(day?.spend?.savedMicros).toBe((16 - 8) * 10);
    const metricsText = (await expose(metrics.registry)).body;
    expect(metricsText).toMatch(/tts_billed_tokens_total\{model="base"\} \d+/);
    expect(metricsText).toMatch(/tts_billed_dollars_total\{model="base"\} [\d.e-]+/);
    expect(metricsText).not.toContain(guildId());
  });

  test('a daily budget refuses /say past it; the spend stays under it', async () => {
    await quiet();
    const spent = (await today())?.spend?.micros ?? 0;
    // Room for three more 40-character texts (100 micro-dollars each).
    const budget = spent + 300;
    const saved = await config('limits', { 'daily-budget': budget / 1_000_000 }).waitForReply();
    expect(saved.content).toContain('Saved.');
    // Read to the micro-dollar, as /usage reads it.
    expect(saved.content).toContain(`**Daily budget:** $${budget / 1_000_000} a day`);
    const replies: (string | undefined)[] = [];
    for (let i = 0; i < 5; i++) {
      const refused = await say(`Budget probe number ${i}, forty chars.`.padEnd(40, 'x'));
      replies.push(refused);
      if (refused !== undefined) break;
      await quiet();
    }
    expect(replies.slice(0, 3)).toEqual([undefined, undefined, undefined]);
    expect(replies).toHaveLength(4);
    expect(replies.at(-1)).toContain('This server has spent its daily TTS budget ($0.00');
    expect(replies.at(-1)).toContain('/config limits daily-budget');
    await quiet();
    expect((await today())?.spend?.micros).toBeLessThanOrEqual(budget);
    expect(billedMicros()).toBeLessThanOrEqual(budget);
  });

  test('past the budget the chat reader stops reading, and /queue says why', async () => {
    await quiet();
    const before = billedMicros();
    t.discord.sendMessage({ user: 'bobby', channelId: chat(), content: 'over the budget' });
    await eventually(
      'the message is refused',
      () => t.bot.services.reader.stats(guildId()).refused > 0,
    );
    // Refused when its voice was chosen, before anything was generated.
    expect(billedMicros()).toBe(before);
    expect(heard().join('\n')).not.toContain('over the budget');
    const queue = await t.discord.slash({ user: 'admin', name: 'queue' }).waitForReply();
    expect(queue.content).toContain(
      'The chat reader has stopped: this server spent its daily budget',
    );
  });

  test('/usage shows the money: today, 30 days, yours, per member, and what merging saved', async () => {
    const usage = await t.discord.slash({ user: 'admin', name: 'usage' }).waitForReply(15_000);
    const text = JSON.stringify(usage.embeds);
    expect(text).toContain('**Spent today (UTC):** $0.00');
    expect(text).toContain('of the daily budget of $0.00');
    expect(text).toContain('**last 30 days:**');
    expect(text).toContain('**You spent today:**');
    // The member who said the probes, with their money beside their generations.
    expect(text).toMatch(new RegExp(`<@${t.discord.users.member?.id}> — 3 · \\$0\\.0003`));
    await config('limits', { 'daily-budget': 0 }).waitForReply();
  });
});
