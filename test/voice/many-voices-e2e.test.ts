/**
 * Many servers speaking at once (issue 38), end to end: the real bot in 24 servers, each with its
 * own key and a listening member in voice (a davey session of the fake voice server), all asked
 * at the same moment to say a short line. Every server hears all of its speech (within 10 % of
 * the generated length) and, under DAVE, never a plaintext frame. Short audio keeps it cheap for
 * CI; the speed of it is `npm run bench -- --only voices`, not asserted here.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { EmulatorUser } from '../../tools/emulator/index.ts';
import { SECONDS_PER_CHAR } from '../../tools/emulator/wav.ts';
import { keyAndJoinEvery } from '../../tools/local-stack/index.ts';
import { startTestBot, type TestBot } from '../support/bot-harness.ts';

const SERVERS = 24;
const users: EmulatorUser[] = Array.from({ length: SERVERS }, (_, i) => ({
  userId: `user_voices_${i}`,
  apiKey: `adx_many_voices_${i}_key`,
  plan: 'paid',
}));
let t: TestBot;

beforeAll(async () => {
  t = await startTestBot({
    emulator: { users },
    discord: {
      guilds: users.map(() => ({ voiceStates: [{ user: 'member', channel: 'Voice' }] })),
    },
  });
  await keyAndJoinEvery(
    t.discord,
    users.map((user) => user.apiKey),
    60_000,
  );
}, 120_000);
afterAll(async () => {
  // Fails when any server heard a plaintext frame under DAVE (the fake voice server checks).
  await t?.stop();
});

test('24 servers speaking at once each hear all of their speech, never in plaintext', async () => {
  const texts = t.discord.guilds.map((_, i) => `Server ${i} says this line at the same moment.`);
  const handles = t.discord.guilds.map((guild, i) =>
    t.discord.slash({
      user: 'member',
      name: 'say',
      channelId: guild.textChannelId,
      options: { text: texts[i] ?? '', output: 'voice' },
    }),
  );
  await Promise.all(
    handles.map((handle) =>
      handle.waitFor(
        (event) => event.kind === 'edit' && /Played|could not|failed/i.test(JSON.stringify(event)),
        90_000,
      ),
    ),
  );
  const heard = t.discord.guilds.map((guild, i) => {
    const expectedMs = (texts[i]?.length ?? 0) * SECONDS_PER_CHAR * 1000;
    const received = t.voiceServer.received(guild.id);
    const { frames, marked, decrypted } = received.dave;
    return {
      share: Math.round((received.durationMs / expectedMs) * 100) / 100,
      // Every sound frame end-to-end encrypted, and decrypted by the listening member.
      encrypted: frames > 0 && marked === frames && decrypted === frames,
    };
  });
  for (const server of heard) {
    expect(server.share).toBeGreaterThanOrEqual(0.9);
    expect(server.share).toBeLessThanOrEqual(1.1);
    expect(server.encrypted).toBe(true);
  }
  expect(t.voiceServer.plaintextReport()).toEqual([]);
}, 120_000);
