/**
 * The Message Content intent is privileged: when Discord refuses it (close code 4014), the bot
 * says what to do in its log and runs without reading chat.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { MESSAGE_CONTENT_REFUSED } from '../../src/discord/client.ts';
import { startTestBot, type TestBot } from '../support/bot-harness.ts';

const MESSAGE_CONTENT = 1 << 15;
let t: TestBot;

beforeAll(async () => {
  t = await startTestBot({ discord: { disallowedIntents: MESSAGE_CONTENT } });
});
afterAll(async () => {
  await t?.stop();
});

test('a refused Message Content intent is logged clearly and the bot runs without it', async () => {
  const errors = t.logs.map((line) => JSON.parse(line) as { level: number; msg: string });
  const refused = errors.find((entry) => entry.msg === MESSAGE_CONTENT_REFUSED);
  expect(refused?.level).toBe(50);
  expect(MESSAGE_CONTENT_REFUSED).toContain('Privileged Gateway Intents → Message Content Intent');
  expect(t.bot.client.isReady()).toBe(true);
  const reply = await t.discord
    .slash({ user: 'admin', name: 'config', subcommand: 'reader' })
    .waitForReply();
  expect(reply.content).toContain('**said-prefix:** on');
});
