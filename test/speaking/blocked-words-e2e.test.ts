/**
 * Blocked words end to end (issue 27): the real bot on the fake Discord and the emulator. The
 * screen holds on the exact text the API is sent, a chat turn as composed included (a name that
 * hits once cleaned, a word spread over one author's messages), and a list built to be slow in
 * one server costs the others nothing noticeable.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestBot, type TestBot } from '../support/bot-harness.ts';
import { chatLookups, readChatInVoice } from '../support/chat-e2e.ts';
import { eventually } from '../voice/support.ts';

let t: TestBot;
const chat = () => t.discord.guild.channels.chat ?? '';

beforeAll(async () => {
  t = await startTestBot({
    emulator: { toneSecondsPerChar: 0.005, generationMs: () => 200 },
    discord: {
      extraUsers: ['bobby', 'carol', 'nicky'],
      guilds: [
        {
          textChannels: ['general', 'chat'],
          nicknames: { nicky: 'cu@nt' },
          memberJoinedAt: Object.fromEntries(
            ['admin', 'bobby', 'carol', 'nicky'].map((u) => [u, '2020-01-01T00:00:00Z']),
          ),
        },
        { textChannels: ['general'] },
      ],
    },
  });
  for (const word of ['cunt', 'bad word', 'fuck'])
    await config('block-word add', { word }).waitForReply();
  await readChatInVoice(t, {
    users: ['admin', 'bobby', 'carol', 'nicky'],
    reader: [{ 'max-age': '10m', blocked: 'bleep' }],
  });
}, 60_000);
afterAll(async () => {
  await t?.stop();
});

const { config, submitted } = chatLookups(() => t);

function send(user: string, content: string): void {
  t.discord.sendMessage({ user, channelId: chat(), content });
}

async function submittedMatching(pattern: RegExp): Promise<string> {
  await eventually(`submitted ${pattern}`, () => submitted().some((s) => pattern.test(s)), 20_000);
  return submitted().find((text) => pattern.test(text)) ?? '';
}

describe('the text the API is sent is screened', () => {
  test('a nickname that hits once cleaned ("cu@nt") is bleeped where it is read', async () => {
    send('nicky', 'hello everyone in the stream tonight');
    const text = await submittedMatching(/hello everyone in the stream/);
    expect(text.toLowerCase()).not.toContain('cunt');
    expect(text).toContain('beep');
  });

  test('one author’s messages "bad." and "word.", clean one by one, are bleeped once joined', async () => {
    const parts = ['bad.', 'word.'];
    const before = submitted().length;
    send('carol', 'the next few lines are from bobby');
    for (const part of parts) send('bobby', part);
    await eventually(
      'bobby read',
      () => submitted().slice(before).join(' ').includes('bobby said'),
      20_000,
    );
    const texts = submitted().slice(before).join('\n').toLowerCase();
    expect(texts).not.toMatch(/bad\W+word/);
    expect(texts).toContain('beep');
  });

  test('"f", "u", "c", "k" sent apart, each read in a turn of its own, are bleeped where the word completes', async () => {
    const before = submitted().length;
    // A quiet chat reads each message at once: each letter waits for the one before to be sent.
    for (const letter of ['f', 'u', 'c', 'k']) {
      const sent = submitted().length;
      send('bobby', letter);
      await eventually(`"${letter}" sent`, () => submitted().length > sent, 20_000);
    }
    const texts = submitted().slice(before).join(' ').toLowerCase();
    expect(texts).not.toMatch(/f\W*u\W*c\W*k/);
    expect(texts).toContain('beep');
  });

  test('with blocked: skip, a word spelled over messages is never sent, and /queue counts what was skipped', async () => {
    await config('reader', { blocked: 'skip' }).waitForReply();
    const before = submitted().length;
    const skippedBefore = await skippedForBlockedWord();
    // Caught where it completes ("word." after "bad.", skipped on arrival), or, where both wait
    // together, in the composed turn, refused as a whole; the chat reads on after it.
    for (const part of ['bad.', 'word.']) send('carol', part);
    for (let tries = 0; (await skippedForBlockedWord()) < skippedBefore + 1; tries++) {
      if (tries > 100) throw new Error('never skipped');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    send('carol', 'a clean message read after it');
    await submittedMatching(/a clean message read after it/);
    const texts = submitted().slice(before).join('\n').toLowerCase();
    expect(texts).not.toMatch(/bad\W+word|beep/);
    expect(await skippedForBlockedWord()).toBeLessThanOrEqual(skippedBefore + 2);
    // A refusal is counted, not warned about as a failure.
    expect(t.logs.some((line) => line.includes('reading chat failed'))).toBe(false);
    await config('reader', { blocked: 'bleep' }).waitForReply();
  });
});

/** `/queue`'s count of chat messages skipped for a blocked word. */
async function skippedForBlockedWord(): Promise<number> {
  const queue = await t.discord.slash({ user: 'admin', name: 'queue' }).waitForReply(20_000);
  // The line shows once a rule has kept something from being read.
  return Number(/(\d+) skipped for a blocked word/.exec(queue.content ?? '')?.[1] ?? 0);
}

describe('a list built to be slow', () => {
  test('one server’s hostile list and a long message of 1s do not hold up another server', async () => {
    const [first, second] = t.discord.guilds;
    if (first === undefined || second === undefined) throw new Error('two guilds expected');
    // 500 entries of 50 letters, each `i` or `l`: the settings' limits.
    let seed = 27;
    const bit = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return (seed >> 16) & 1;
    };
    const hostile = Array.from({ length: 500 }, () =>
      Array.from({ length: 50 }, () => (bit() ? 'i' : 'l')).join(''),
    );
    expect(new Set(hostile).size).toBe(500);
    await t.bot.services.settings.updateGuild(first.id, (guild) => ({
      ...guild,
      blockedWords: hostile,
    }));
    await config('reader', { 'max-length': 1000 }).waitForReply();
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    send('bobby', '1'.repeat(1_000));
    const say = t.discord.slash({
      user: 'member',
      name: 'say',
      options: { text: 'hello from the other server' },
      channelId: second.textChannelId,
    });
    // The first answer (a deferral or a refusal: that server has no key) within Discord's 3 s.
    await say.waitFor((event) => event.kind === 'callback', 3_000);
    // Screened and skipped: the server's `/queue` counts it.
    for (let tries = 0; ; tries++) {
      const queue = await t.discord.slash({ user: 'admin', name: 'queue' }).waitForReply(20_000);
      if (queue.content?.includes('skipped for a blocked word')) break;
      if (tries > 50) throw new Error(`never screened: ${queue.content}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    loop.disable();
    expect(loop.max / 1e6).toBeLessThan(3_000);
    expect(submitted().join('\n')).not.toContain('1'.repeat(50));
  }, 60_000);
});
