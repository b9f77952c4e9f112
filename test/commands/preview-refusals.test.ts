/**
 * A refused preview says why, in the member's language (issue 23): the real bot against the
 * fake Discord and the emulator. Previews ask the speaking service, whose one refusal mapping
 * `/say` shares, so a full voice queue is never told as "I left the voice channel".
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { USER_ONE } from '../../tools/emulator/index.ts';
import { startTestBot, type TestBot } from '../support/bot-harness.ts';
import { sentence } from '../tts/emulated.ts';
import { eventually } from '../voice/support.ts';

let t: TestBot;
beforeAll(async () => {
  t = await startTestBot({ env: { QUEUE_MAX_LENGTH: '3', QUEUE_MAX_PER_MEMBER: '2' } });
});
afterAll(async () => {
  await t?.stop();
});

const EPHEMERAL = 64;
const STORED = 'af_3kbq21leo';

/** The private answer to a preview of `voice`, in `locale` (English when absent). */
async function preview(voice: string, options: { user?: string; locale?: string } = {}) {
  const reply = await t.discord
    .slash({
      user: options.user ?? 'member',
      name: 'preview',
      options: { voice },
      ...(options.locale === undefined ? {} : { locale: options.locale }),
    })
    .waitForReply(20_000);
  expect((reply.flags ?? 0) & EPHEMERAL).toBe(EPHEMERAL);
  return reply.content ?? '';
}

function limits(memberDaily: number) {
  return t.discord
    .slash({
      user: 'admin',
      name: 'config',
      subcommand: 'limits',
      options: { 'member-daily': memberDaily },
    })
    .waitForReply();
}

/** A `/say` in voice that stays queued (generations never complete meanwhile). */
async function queued(user: string): Promise<void> {
  const handle = t.discord.slash({
    user,
    name: 'say',
    options: { text: sentence(40), output: 'voice' },
  });
  await handle.waitFor((e) => e.kind === 'edit' && /position/.test(JSON.stringify(e)), 15_000);
}

describe('a refused preview says why, in English and German', () => {
  test('no key yet', async () => {
    expect(await preview(STORED)).toContain('This server has no Audixa API key yet.');
    expect(await preview(STORED, { locale: 'de' })).toContain(
      'Dieser Server hat noch keinen Audixa-API-Schlüssel.',
    );
    await t.configureKey(USER_ONE.apiKey);
  });

  test('an unknown voice', async () => {
    expect(await preview('no_such_voice')).toContain('There is no voice `no_such_voice`');
    expect(await preview('no_such_voice', { locale: 'de' })).toContain(
      'Es gibt keine Stimme `no_such_voice`',
    );
  });

  test('the member’s daily share is used up', async () => {
    await limits(1);
    try {
      // The first sample of a voice is generated for the member: their share of 1.
      expect(await preview(STORED)).toMatch(/preview of \*\*Lily/i);
      expect(await preview('bm_5tyh0q2xw')).toContain(
        'You have used your share of this server’s generations for today (1 per member per day).',
      );
      expect(await preview('bm_5tyh0q2xw', { locale: 'de' })).toContain(
        'Du hast deinen Anteil an den heutigen Generierungen dieses Servers aufgebraucht (1 pro Mitglied und Tag).',
      );
    } finally {
      await limits(0);
    }
  });

  test('the member already has the most items waiting in the voice queue, then the queue is full', async () => {
    for (const user of ['member', 'admin'])
      t.discord.moveMember({ userId: user, channelId: t.discord.guild.voiceChannelId });
    await eventually('the bot sees both', () => t.discord.voiceStates().length === 2);
    const joined = await t.discord.slash({ user: 'member', name: 'join' }).waitForReply(15_000);
    expect(joined.content).toContain('Joined');
    t.emulator.fault({ kind: 'never-complete', times: Number.POSITIVE_INFINITY });
    try {
      await queued('member');
      await queued('member');
      const mine = await preview(STORED);
      expect(mine).toContain(
        'You already have 2 items waiting in the voice queue, the most one member may have.',
      );
      expect(mine).not.toContain('voice channel any more');
      expect(await preview(STORED, { locale: 'de' })).toContain(
        'Du hast schon 2 Einträge in der Warteschlange, mehr darf ein Mitglied nicht haben.',
      );
      await queued('admin');
      expect(await preview(STORED, { user: 'admin' })).toContain('The queue is full (3 items).');
      expect(await preview(STORED, { user: 'admin', locale: 'de' })).toContain(
        'Die Warteschlange ist voll (3 Einträge).',
      );
    } finally {
      t.emulator.clearFaults();
      await t.discord.slash({ user: 'admin', name: 'stop' }).waitForReply();
    }
  });
});
