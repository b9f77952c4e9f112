/**
 * Issue 30 end to end: the real bot on the fake Discord reads a channel of the fake Twitch chat
 * server into voice. Channel-points redemptions (`custom-reward-id`, a UUID that differs each
 * run) and cheers (`bits`, with cheermotes) are read by mode, ahead of plain chat and never
 * dropped as stale; chatters pick voices with `!voice`; the broadcaster and moderators (by
 * badge) skip, mute, unmute, pause and resume with `!tts`, and nobody else can.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  defaultTwitchSettings,
  KeyvChatVoices,
  type TwitchSettings,
} from '../../src/store/index.ts';
import { USER_ONE } from '../../tools/emulator/index.ts';
import { FakeTwitch } from '../fake-twitch/index.ts';
import { startTestBot, type TestBot } from '../support/bot-harness.ts';
import { chatLookups, joinWith, twitchPoster } from '../support/chat-e2e.ts';
import { until } from '../twitch/support.ts';
import { eventually } from '../voice/support.ts';

let t: TestBot;
let twitch: FakeTwitch;
const CHANNEL = 'paidstream';
const REWARD = randomUUID();
const MOD = 'moderator/1';
const { post, userIdOf } = twitchPoster(() => twitch, CHANNEL, 'paid', 5000);
const { config, heardGenerations, heard, submitted, heardMatching } = chatLookups(() => t);

beforeAll(async () => {
  twitch = await FakeTwitch.start();
  t = await startTestBot({
    env: { TWITCH_CHAT_URL: twitch.url },
    // Tone audio 10 ms per character: chat plays out quickly, a long /say holds the queue.
    emulator: { toneSecondsPerChar: 0.01, generationMs: () => 200 },
  });
  await t.configureKey(USER_ONE.apiKey);
  await config('twitch add', { channel: CHANNEL }).waitForReply();
  await until(() => twitch.joined(CHANNEL));
  await joinWith(t, ['admin']);
});
afterAll(async () => {
  await t?.stop();
  await twitch?.close();
});

const placeOf = (pattern: RegExp) => heard().findIndex((text) => pattern.test(text));

const guildId = () => t.discord.guild.id;
const stored = async () => (await t.bot.services.settings.guild(guildId())).twitch;
/** Waits until the server's stored Twitch settings pass `ok` (a chat command took effect). */
async function storedWhen(what: string, ok: (s: TwitchSettings) => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!ok(await stored())) {
    if (Date.now() > deadline) throw new Error(`never ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('/config twitch read and reward', () => {
  test('read shows and sets the mode, min-bits and prefix; a bad prefix is refused', async () => {
    const shown = await config('twitch read').waitForReply();
    expect(shown.content).toContain('**read:** chat · **min-bits:** 1 · **prefix:** `!`');
    const bad = await config('twitch read', { prefix: 'tts' }).waitForReply();
    expect(bad.content).toContain('starts with a symbol');
    const set = await config('twitch read', { mode: 'redeems', 'min-bits': 100 }).waitForReply();
    expect(set.content).toContain('**read:** redeems · **min-bits:** 100');
  });

  test('reward learn: the next redemption with text becomes the reward, and the reply confirms it', async () => {
    const learn = config('twitch reward', { action: 'learn' });
    expect((await learn.waitForReply()).content).toContain('Redeem the TTS reward once');
    post('ronni_tv', 'this redemption teaches the reward', {
      rewardId: REWARD,
      displayName: 'RonniTV',
    });
    await learn.waitFor(() => /Learned/.test(learn.lastMessage()?.content ?? ''), 15_000);
    expect(learn.lastMessage()?.content).toContain(`RonniTV’s redemption in \`${CHANNEL}\``);
    expect(learn.lastMessage()?.content).toContain(REWARD);
    expect((await stored()).rewardId).toBe(REWARD);
    // The redemption that taught it is the reward's, and read.
    await heardMatching(/teaches the reward/);
  });

  test('reward id sets it directly, clear forgets it', async () => {
    const other = randomUUID();
    expect((await config('twitch reward', { id: other }).waitForReply()).content).toContain(other);
    expect((await stored()).rewardId).toBe(other);
    await config('twitch reward', { action: 'clear' }).waitForReply();
    expect((await stored()).rewardId).toBeUndefined();
    const both = await config('twitch reward', { action: 'clear', id: other }).waitForReply();
    expect(both.content).toContain('not both');
    await config('twitch reward', { id: REWARD }).waitForReply();
  });
});

describe('read modes', () => {
  test('redeems: only the server’s reward is read, not chat nor another reward', async () => {
    post('viewer', 'plain chat while only redemptions are read');
    post('viewer', 'a redemption of some other reward', { rewardId: randomUUID() });
    post('fan', 'the tts reward redemption is read', { rewardId: REWARD });
    await heardMatching(/tts reward redemption is read/);
    expect(submitted().join()).not.toMatch(/plain chat while|some other reward/);
  });

  test('cheers: cheers of min-bits or more, said with their bits and without cheermotes', async () => {
    await config('twitch read', { mode: 'cheers' }).waitForReply();
    const bits = 100 + randomInt(5000);
    const part = randomInt(1, bits);
    post('cheerer', `Kappa${part} what a great play BibleThump${bits - part}`, {
      bits,
      displayName: 'Cheerer',
    });
    post('small', 'Cheer10 too small to be read', { bits: 10 });
    post('fan', 'a redemption is not read with cheers', { rewardId: REWARD });
    const said = await heardMatching(/what a great play/);
    expect(said).toBe(`Cheerer cheered ${bits} bits: what a great play.`);
    expect(submitted().join()).not.toMatch(/too small|not read with cheers|Kappa\d|BibleThump\d/);
  });
});

describe('paid messages first, never stale', () => {
  test('with chat waiting, a redemption and a cheer are read before older plain messages', async () => {
    await config('twitch read', { mode: 'chat', 'min-bits': 1 }).waitForReply();
    await config('reader', { 'max-age': '10m' }).waitForReply();
    // Plain chatters in one voice, payers in another: a batch holds one voice, so the order of
    // the batches is the order of the reading.
    for (const login of ['amy', 'ben', 'cat']) post(login, '!voice george');
    for (const login of ['payer', 'cheery']) post(login, '!voice alice');
    const chosen = new KeyvChatVoices(t.bot.store);
    await until(async () => (await chosen.count(guildId())) >= 5);
    for (const login of ['amy', 'ben', 'cat']) post(login, `${login} chats before the paid ones`);
    post('payer', 'my redemption comes first', { rewardId: REWARD });
    post('cheery', 'Cheer1 my cheer comes first too', { bits: 1 });
    await eventually('all heard', () => placeOf(/cat chats before/) >= 0, 30_000);
    const paid = Math.max(placeOf(/redemption comes first/), placeOf(/cheer comes first/));
    expect(placeOf(/redemption comes first/)).toBeGreaterThanOrEqual(0);
    for (const login of ['amy', 'ben', 'cat'])
      expect(placeOf(new RegExp(`${login} chats before`))).toBeGreaterThan(paid);
  });

  test('while a long /say plays past max-age, plain chat goes stale and paid messages wait; /queue shows them apart', async () => {
    await config('reader', { 'max-age': '5s' }).waitForReply();
    const say = t.discord.slash({
      user: 'admin',
      name: 'say',
      options: { text: 'a long announcement that holds the queue. '.repeat(24) },
    });
    await say.waitForReply(15_000);
    await eventually(
      'the /say plays',
      () => t.bot.services.voice.queue(guildId())[0]?.state === 'playing',
      15_000,
    );
    post('stale', 'plain chat that goes stale while the say plays');
    post('payer', 'a paid redemption that waits its turn', { rewardId: REWARD });
    const bits = 2 + randomInt(50);
    post('cheery', `Cheer${bits} a paid cheer that waits too`, { bits });
    await eventually(
      'the paid ones waiting',
      () => t.bot.services.reader.stats(guildId()).waitingPaid >= 2,
      10_000,
    );
    const queue = await t.discord.slash({ user: 'admin', name: 'queue' }).waitForReply();
    expect(queue.content).toMatch(/Twitch redemptions and cheers: [12] waiting/);
    await heardMatching(/paid redemption that waits/, 30_000);
    expect(submitted().join()).not.toContain('goes stale while');
    expect(t.bot.services.reader.stats(guildId()).droppedStale).toBeGreaterThan(0);
    await config('reader', { 'max-age': '10m' }).waitForReply();
  });
});

describe('!voice', () => {
  test('a chatter picks a voice of the key by name, and !voice alone returns to the automatic one', async () => {
    post('voicey', 'first words in an automatic voice');
    await heardMatching(/first words in an automatic/);
    const voiceOf = (pattern: RegExp) =>
      heardGenerations().find((g) => pattern.test(g.text))?.voiceId;
    const automatic = voiceOf(/first words in an automatic/);
    // A free voice (every plan speaks it) other than the one given automatically.
    const [name, wanted] =
      automatic === 'am_r4x0b7ncu' ? ['EMM', 'af_k2p8s1oqe'] : ['ADA', 'am_r4x0b7ncu'];
    post('voicey', `!voice ${name}`);
    post('voicey', 'now speaking in the chosen voice');
    await heardMatching(/now speaking in the chosen voice/);
    expect(voiceOf(/now speaking in the chosen voice/)).toBe(wanted);
    // In the chatter's own record, never the server's.
    const chosen = new KeyvChatVoices(t.bot.store);
    expect((await chosen.get(guildId(), userIdOf('voicey')))?.voiceId).toBe(wanted);
    expect((await stored()).voices).toEqual({});
    const list = await config('twitch list').waitForReply();
    expect(list.content).toMatch(/\d+ chatters? chose (a|their) voice with `!voice`/);
    post('voicey', '!voice no such voice anywhere');
    post('voicey', '!voice');
    post('voicey', 'back to the automatic voice');
    await heardMatching(/back to the automatic/);
    expect(voiceOf(/back to the automatic/)).toBe(automatic);
    expect(submitted().join()).not.toMatch(/voice (EMM|ADA)|no such voice/);
  });
});

describe('!tts from the broadcaster and moderators', () => {
  test('a non-moderator’s !tts mute is ignored; a moderator’s mutes: never sent to the API until unmuted', async () => {
    post('viewer', '!tts mute target_chatter', { badges: 'subscriber/3,vip/1' });
    post('target_chatter', 'target speaks while a viewer tried to mute');
    await heardMatching(/target speaks while a viewer/);
    expect((await stored()).muted).toEqual([]);
    post('the_mod', '!tts mute @Target_Chatter', { badges: MOD });
    await storedWhen('muted', (s) => s.muted.includes('target_chatter'));
    post('target_chatter', 'muted words never reach the api');
    post('bystander', 'a bystander speaks after the mute');
    await heardMatching(/bystander speaks after the mute/);
    post('streamer', '!tts unmute target_chatter', { badges: 'broadcaster/1' });
    await storedWhen('unmuted', (s) => !s.muted.includes('target_chatter'));
    post('target_chatter', 'unmuted and read again');
    await heardMatching(/unmuted and read again/);
    expect(submitted().join()).not.toMatch(/muted words never|tts mute|tts unmute/);
  });

  test('pause and resume; a non-moderator cannot resume', async () => {
    post('the_mod', '!tts pause', { badges: MOD });
    await storedWhen('paused', (s) => s.paused);
    const list = await config('twitch list').waitForReply();
    expect(list.content).toContain('Reading is paused from chat; `!tts resume` resumes it.');
    post('viewer', '!tts resume');
    post('chatty', 'said while the reader is paused');
    post('payer', 'a redemption while paused', { rewardId: REWARD });
    post('the_mod', '!tts resume', { badges: MOD });
    await storedWhen('resumed', (s) => !s.paused);
    post('chatty', 'said after the resume');
    await heardMatching(/said after the resume/);
    expect(submitted().join()).not.toMatch(/while the reader is paused|redemption while paused/);
  });

  test('skip stops what plays now, from a moderator only; another prefix is a setting', async () => {
    const queue = () => t.bot.services.voice.queue(guildId());
    await eventually('the queue is idle', () => queue().length === 0, 20_000);
    const long = 'a very long message that a moderator skips. '.repeat(8);
    post('longwinded', long);
    await eventually('the long message plays', () => queue()[0]?.state === 'playing', 20_000);
    const dropped = () => t.bot.services.twitch.status(guildId())[0]?.droppedToday ?? 0;
    const before = dropped();
    post('viewer', '!tts skip', { badges: 'vip/1' });
    await eventually('the viewer’s skip is handled (not read)', () => dropped() > before, 10_000);
    expect(queue()[0]?.state).toBe('playing');
    post('the_mod', '!tts skip', { badges: MOD });
    await eventually('skipped', () => queue().length === 0, 10_000);
    await config('twitch read', { prefix: '?' }).waitForReply();
    post('the_mod', '?tts pause', { badges: MOD });
    await storedWhen('paused with ?', (s) => s.paused);
    post('the_mod', '?tts resume', { badges: MOD });
    await storedWhen('resumed with ?', (s) => !s.paused);
    await config('twitch read', { prefix: '!' }).waitForReply();
  });
});

describe('forgetting the server', () => {
  test('/config forget deletes the chosen voices, the mutes and the reward', async () => {
    post('the_mod', '!tts mute forgotten_troll', { badges: MOD });
    await storedWhen('muted', (s) => s.muted.length > 0);
    const chosen = new KeyvChatVoices(t.bot.store);
    expect(await chosen.count(guildId())).toBeGreaterThan(0);
    const question = await config('forget').waitForReply();
    const confirm = t.discord.clickButton({
      user: 'admin',
      message: question,
      customId: 'config:forget:confirm',
    });
    await confirm.waitFor((event) => event.kind === 'edit', 10_000);
    const after = await stored();
    expect(after).toEqual(defaultTwitchSettings());
    expect(await chosen.count(guildId())).toBe(0);
  });
});
