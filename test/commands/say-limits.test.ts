/**
 * Per-member limits end to end: the real bot against the fake Discord and the emulator. Each
 * refusal reaches only the member, says why and when it frees up (a Discord relative time).
 * With either API version: v3 has no daily allowance, so no default daily share (a fifth of
 * v2's 500), but a share a manager sets applies as with v2, as do the per-server file slots and
 * the voice queue's cap.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { USER_ONE } from '../../tools/emulator/index.ts';
import { api, submissionCount } from '../support/api-under-test.ts';
import { startTestBot, type TestBot } from '../support/bot-harness.ts';
import { sentence } from '../tts/emulated.ts';
import { eventually } from '../voice/support.ts';

let t: TestBot;
beforeAll(async () => {
  t = await startTestBot({ emulator: { generationMs: () => 150 } });
  await t.configureKey(USER_ONE.apiKey);
});
afterAll(async () => {
  await t?.stop();
});

const EPHEMERAL = 64;
const RELATIVE_TIME = /<t:(\d+):R>/;
const posts = () => submissionCount(t.emulator);

function say(user: string, options: Record<string, string> = {}) {
  return t.discord.slash({ user, name: 'say', options: { text: sentence(40), ...options } });
}

function limits(options: Record<string, number> = {}, user = 'admin') {
  return t.discord.slash({ user, name: 'config', subcommand: 'limits', options });
}

/** The private refusal a command ended with (the public reply, if deferred, is deleted). */
async function refusal(handle: ReturnType<typeof say>) {
  await handle.waitFor((e) => (e.kind === 'callback' && e.type === 4) || e.kind === 'delete');
  const reply = handle.callback()?.type === 4 ? handle.lastMessage() : handle.followUps()[0];
  expect((reply?.flags ?? 0) & EPHEMERAL).toBe(EPHEMERAL);
  return reply?.content ?? '';
}

/** Waits for a file reply to carry its attachment. */
async function attached(handle: ReturnType<typeof say>) {
  await handle.waitFor((e) => e.kind === 'edit' && handle.files().length > 0, 20_000);
  return handle.files();
}

describe('/config limits', () => {
  test('shows the default share (a fifth of the daily limit, none without one) and the voice cap, to managers only', async () => {
    const shown = await limits().waitForReply();
    const daily = api.defaultDaily;
    expect(shown.content).toContain(
      daily === undefined
        ? '**Per-member share:** no daily share: the key has no daily limit.'
        : `${daily / 5} generations per member per day (the default: a fifth of the key’s ${daily} a day)`,
    );
    expect(shown.content).toContain('at most 3 items waiting per member');
    expect((shown.flags ?? 0) & EPHEMERAL).toBe(EPHEMERAL);
    const member = await t.discord
      .slash({ user: 'member', name: 'config', subcommand: 'limits', force: true })
      .waitForReply();
    expect(member.content).toContain('Manage Server');
  });
});

describe('per-member limits', () => {
  test('the daily share: the next /say is refused with when it frees up; a manager is exempt', async () => {
    const saved = await limits({ 'member-daily': 1 }).waitForReply();
    expect(saved.content).toContain('Saved.');
    expect(saved.content).toContain('1 generation per member per day');
    expect(await attached(say('member'))).toHaveLength(1);
    const before = posts();
    const text = await refusal(say('member'));
    expect(text).toContain('used your share of this server’s generations for today');
    expect(text).toContain('(1 per member per day)');
    const midnight = (Math.floor(Date.now() / 86_400_000) + 1) * 86_400;
    expect(Number(RELATIVE_TIME.exec(text)?.[1])).toBe(midnight);
    expect(posts()).toBe(before);
    expect(await attached(say('admin'))).toHaveLength(1); // Manage Server: exempt
    await limits({ 'member-daily': 0 }).waitForReply(); // no share for the next tests
    expect(await attached(say('member'))).toHaveLength(1);
  });

  test('file mode: five at once per server go to the key; the sixth waits with its place shown, then gets its file', async () => {
    // The first five are slow to be accepted, so they hold their places until then.
    t.emulator.fault({ kind: 'delay', endpoint: api.submit, ms: 2500, times: 5 });
    const handles = Array.from({ length: 6 }, () => say('member'));
    const sixth = handles[5];
    await sixth?.waitFor(
      (e) => e.kind === 'edit' && /place 1 in line/.test(JSON.stringify(e)),
      15_000,
    );
    for (const handle of handles) expect(await attached(handle)).toHaveLength(1);
    for (const handle of handles.slice(0, 5))
      expect(JSON.stringify(handle.events)).not.toContain('in line');
  });

  test('the voice queue: a fourth waiting item is refused with when a place frees up', async () => {
    t.discord.moveMember({ userId: 'member', channelId: t.discord.guild.voiceChannelId });
    await eventually('the bot sees the member', () => t.discord.voiceStates().length === 1);
    const joined = await t.discord.slash({ user: 'member', name: 'join' }).waitForReply(15_000);
    expect(joined.content).toContain('Joined');
    t.emulator.fault({ kind: 'never-complete', times: Number.POSITIVE_INFINITY });
    const queued = [1, 2, 3].map(() => say('member', { output: 'voice' }));
    for (const handle of queued)
      await handle.waitFor((e) => e.kind === 'edit' && /position/.test(JSON.stringify(e)));
    const text = await refusal(say('member', { output: 'voice' }));
    expect(text).toContain('You already have 3 items waiting in the voice queue');
    expect(text).toMatch(RELATIVE_TIME);
    // Someone else still gets in.
    const other = say('admin', { output: 'voice' });
    await other.waitFor((e) => e.kind === 'edit' && /position/.test(JSON.stringify(e)));
    const stop = await t.discord.slash({ user: 'member', name: 'stop' }).waitForReply();
    expect(stop.content).toContain('4 items');
    t.emulator.clearFaults();
  });
});
