/**
 * A streamer's cloned voice and Twitch chat, end to end: the real bot on the fake Discord,
 * reading a channel of the fake Twitch server, with a key of the emulator that owns two cloned
 * voices (`USER_TWO`, on `advance`). A chatter never speaks in a clone through `!voice` (by its
 * name, by "custom", by "clone"), until the server's admin allows any voice with
 * `/config twitch read chat-voices:any`.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { USER_TWO } from '../../tools/emulator/index.ts';
import { FakeTwitch } from '../fake-twitch/index.ts';
import { startTestBot, type TestBot } from '../support/bot-harness.ts';
import { chatLookups, joinWith, twitchPoster } from '../support/chat-e2e.ts';
import { until } from '../twitch/support.ts';

let t: TestBot;
let twitch: FakeTwitch;
const CHANNEL = 'clonestream';
const { post } = twitchPoster(() => twitch, CHANNEL, 'clone', 7000);
const { config, heardGenerations, heardMatching } = chatLookups(() => t);
const CLONES = USER_TWO.customVoices.map((v) => v.voice_id);

beforeAll(async () => {
  twitch = await FakeTwitch.start();
  t = await startTestBot({
    env: { TWITCH_CHAT_URL: twitch.url },
    emulator: { toneSecondsPerChar: 0.005, generationMs: () => 200 },
  });
  await t.configureKey(USER_TWO.apiKey);
  await t.discord
    .slash({ user: 'admin', name: 'config', subcommand: 'defaults', options: { model: 'advance' } })
    .waitForReply();
  await config('twitch add', { channel: CHANNEL }).waitForReply();
  await until(() => twitch.joined(CHANNEL));
  await joinWith(t, ['admin']);
});
afterAll(async () => {
  await t?.stop();
  await twitch?.close();
});

const voiceOf = (pattern: RegExp) => heardGenerations().find((g) => pattern.test(g.text))?.voiceId;

describe('a cloned voice and !voice', () => {
  test('never chosen from chat: by its name, by “custom”, by “clone”', async () => {
    const asked = ['Narrator Clone', 'My Custom Voice', 'custom', 'clone'];
    for (const [i, name] of asked.entries()) {
      // Each from a chatter of their own: no cooldown in the way.
      post(`viewer${i}`, `!voice ${name}`);
      post(`viewer${i}`, `viewer number ${i} speaks after asking`);
    }
    for (const i of asked.keys()) await heardMatching(new RegExp(`viewer number ${i} speaks`));
    for (const i of asked.keys()) {
      const used = voiceOf(new RegExp(`viewer number ${i} speaks`));
      expect(used, asked[i]).toBeDefined();
      expect(CLONES, asked[i]).not.toContain(used);
    }
  });

  test('with chat-voices: any, a chatter may pick it', async () => {
    const shown = await config('twitch read', { 'chat-voices': 'any' }).waitForReply();
    expect(shown.content).toContain('**chat-voices:** any');
    post('allowed', '!voice Narrator Clone');
    post('allowed', 'now in the streamer’s own clone');
    await heardMatching(/now in the streamer’s own clone/);
    expect(voiceOf(/now in the streamer’s own clone/)).toBe('adv_user_clone_xyz');
  });
});
