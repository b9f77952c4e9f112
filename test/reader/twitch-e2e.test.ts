/**
 * Twitch chat read into voice, end to end: the real bot logged into the fake Discord, reading
 * a channel of the fake Twitch chat server (`TWITCH_CHAT_URL`), generating with the emulator.
 * Every rule of issue 18 has its case: the display name, `/me`, emotes and the emoji setting,
 * ignored prefixes, the badge filter, moderator deletes, timeouts and chat clears, the state
 * `/config twitch list` shows and the metrics.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { PrometheusMetrics } from '../../src/ops/index.ts';
import { USER_ONE } from '../../tools/emulator/index.ts';
import { FakeTwitch } from '../fake-twitch/index.ts';
import { startTestBot, type TestBot } from '../support/bot-harness.ts';
import { chatLookups, twitchPoster } from '../support/chat-e2e.ts';
import { until } from '../twitch/support.ts';
import { eventually } from '../voice/support.ts';

let t: TestBot;
let twitch: FakeTwitch;
const metrics = new PrometheusMetrics({ defaultMetrics: false });
const CHANNEL = 'streamerone';
/** Posts to the read channel as `login` (user id derived), returning the id. */
const { post } = twitchPoster(() => twitch, CHANNEL, 'msg', 1000);
const { config, heardGenerations, heard, submitted, heardMatching } = chatLookups(() => t);

beforeAll(async () => {
  twitch = await FakeTwitch.start();
  t = await startTestBot({ env: { TWITCH_CHAT_URL: twitch.url }, metrics });
  await t.configureKey(USER_ONE.apiKey);
});
afterAll(async () => {
  await t?.stop();
  await twitch?.close();
});

/** Waits until every Twitch message so far was read or dropped, then for its speech to settle. */
async function settled(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 2500));
}

describe('Twitch chat: setup', () => {
  test('/config twitch add joins the channel over the shared connection, list shows it', async () => {
    const bad = await config('twitch add', { channel: 'not a channel!' }).waitForReply();
    expect(bad.content).toContain('is not a Twitch channel name');
    const added = await config('twitch add', {
      channel: `https://www.twitch.tv/${CHANNEL}`,
    }).waitForReply();
    expect(added.content).toContain(`I will read the chat of \`${CHANNEL}\``);
    await until(() => twitch.joined(CHANNEL));
    const list = await config('twitch list').waitForReply();
    expect(list.content).toMatch(new RegExp(`\`${CHANNEL}\`: connected; today 0 read, 0 dropped`));
    const shown = await config('reader').waitForReply();
    expect(shown.content).toContain(`**Twitch channels:** \`${CHANNEL}\``);
    expect(shown.content).toContain('**twitch-badges:** everyone');
    const stored = await t.bot.services.settings.guild(t.discord.guild.id);
    expect(stored.reader.twitchChannels).toEqual([CHANNEL]);
  });

  test('at most three channels per server', async () => {
    for (const extra of ['two', 'three'])
      await config('twitch add', { channel: `chan${extra}` }).waitForReply();
    const full = await config('twitch add', { channel: 'chanfour' }).waitForReply();
    expect(full.content).toContain('At most 3 Twitch channels');
    for (const extra of ['two', 'three'])
      await config('twitch remove', { channel: `chan${extra}` }).waitForReply();
    await until(() => !twitch.joined('chantwo') && !twitch.joined('chanthree'));
    expect(twitch.joined(CHANNEL)).toBe(true);
    const again = await config('twitch remove', { channel: 'chantwo' }).waitForReply();
    expect(again.content).toContain('`chantwo` was not in the list: nothing changed.');
  });
});

describe('Twitch chat: reading', () => {
  test('nothing is read while the bot is in no voice channel', async () => {
    post('early', 'is anyone reading this twitch chat yet');
    await settled();
    expect(submitted().join()).not.toContain('anyone reading');
  });

  test('a Twitch message is heard in voice with the chatter’s display name', async () => {
    t.discord.moveMember({ userId: 'admin', channelId: t.discord.guild.voiceChannelId });
    const join = await t.discord.slash({ user: 'admin', name: 'join' }).waitForReply(15_000);
    expect(join.content).toContain('Joined');
    post('ronni_tv', 'hello from the twitch chat everyone', { displayName: 'RonniTV' });
    expect(await heardMatching(/hello from the twitch/)).toBe(
      'RonniTV said hello from the twitch chat everyone.',
    );
    await t.voiceServer.waitForAudio(t.discord.guild.id, { timeoutMs: 10_000 });
  });

  test('/me is read as "X …"', async () => {
    post('wavey', 'waves at the whole stream', { displayName: 'Wavey', action: true });
    expect(await heardMatching(/waves at the whole/)).toMatch(/Wavey waves at the whole stream\.$/);
  });

  test('each chatter has a voice of their own (voices: auto, a new server’s default), kept across messages', async () => {
    const shown = await config('reader').waitForReply();
    expect(shown.content).toContain('**voices:** auto');
    post('ronni_tv', 'ronni speaks once more in here', { displayName: 'RonniTV' });
    await heardMatching(/ronni speaks once more/);
    const voiceOf = (pattern: RegExp) =>
      heardGenerations().find((g) => pattern.test(g.text))?.voiceId;
    expect(voiceOf(/ronni speaks once more/)).toBe(voiceOf(/hello from the twitch/));
    expect(voiceOf(/waves at the whole/)).not.toBe(voiceOf(/hello from the twitch/));
  });

  test('emotes are read by name, or dropped with emoji: drop (an emote-only message then not at all)', async () => {
    post('emoter', 'Kappa that was close PogChamp', {
      displayName: 'Emoter',
      emotes: '25:0-4/88:21-28',
    });
    expect(await heardMatching(/that was close/)).toMatch(
      /Emoter said Kappa that was close PogChamp\./,
    );
    await config('reader', { emoji: 'drop' }).waitForReply();
    post('emoter', 'Kappa Kappa Kappa', { displayName: 'Emoter', emotes: '25:0-4,6-10,12-16' });
    post('emoter', 'LUL what a play', { displayName: 'Emoter', emotes: '425618:0-2' });
    expect(await heardMatching(/what a play/)).toMatch(/what a play\.$/);
    expect(heard().find((text) => /what a play/.test(text))).not.toContain('LUL');
    expect(submitted().join()).not.toMatch(/Kappa Kappa/);
    await config('reader', { emoji: 'names' }).waitForReply();
  });

  test('messages starting with an ignored prefix (!) are not read', async () => {
    post('cmd', '!discord please give me the link', { displayName: 'Cmd' });
    post('cmd', 'a normal question about the game', { displayName: 'Cmd' });
    await heardMatching(/normal question/);
    expect(submitted().join()).not.toContain('give me the link');
  });

  test('twitch-badges reads only chatters with those badges, until set back to everyone', async () => {
    const set = await config('reader', { 'twitch-badges': 'moderator vip' }).waitForReply();
    expect(set.content).toContain('**twitch-badges:** moderator vip');
    const bad = await config('reader', { 'twitch-badges': 'moderator owner' }).waitForReply();
    expect(bad.content).toContain('twitch-badges takes any of');
    post('viewer', 'a viewer without any badge talking', { displayName: 'Viewer' });
    post('modder', 'the moderator says keep it friendly', {
      displayName: 'Modder',
      badges: 'moderator/1',
    });
    await heardMatching(/keep it friendly/);
    await settled();
    expect(submitted().join()).not.toContain('without any badge');
    await config('reader', { 'twitch-badges': 'everyone' }).waitForReply();
  });
});

describe('Twitch chat: raids', () => {
  test('new-member-delay holds first-time chatters (first-msg) and their next messages; /queue counts them', async () => {
    await config('reader', { 'new-member-delay': '10m' }).waitForReply();
    post('raider', 'first time here raid raid raid', { displayName: 'Raider', firstMessage: true });
    post('raider', 'still the same raider talking', { displayName: 'Raider' });
    post('regular', 'a regular keeps chatting as ever', { displayName: 'Regular' });
    await heardMatching(/regular keeps chatting/);
    await settled();
    expect(submitted().join()).not.toMatch(/raid raid|same raider/);
    const queue = await t.discord.slash({ user: 'admin', name: 'queue' }).waitForReply();
    expect(queue.content).toMatch(/2 skipped from new members/);
    await config('reader', { 'new-member-delay': 'off' }).waitForReply();
  });
});

describe('Twitch chat: what moderators do is honoured', () => {
  test('a message a moderator deletes (CLEARMSG) is never read and costs nothing', async () => {
    const before = submitted().length;
    const id = post('oops', 'this message gets deleted by a moderator', { displayName: 'Oops' });
    twitch.deleteMessage(CHANNEL, id, 'oops');
    await settled();
    expect(submitted().length).toBe(before);
  });

  test('a message a moderator deletes while it is being read stops being read', async () => {
    const guildId = t.discord.guild.id;
    const id = post('rude', 'a rude message that a moderator removes quickly, '.repeat(4), {
      displayName: 'Rude',
    });
    await heardMatching(/rude message/);
    await eventually(
      'the rude message is being read',
      () => t.bot.services.voice.queue(guildId)[0]?.state === 'playing',
      15_000,
    );
    twitch.deleteMessage(CHANNEL, id, 'rude');
    await eventually('it stopped', () => t.bot.services.voice.queue(guildId).length === 0, 5000);
  });

  test('a chatter timed out (CLEARCHAT with a user) has their waiting messages dropped', async () => {
    twitch.post(CHANNEL, {
      id: 'spam-1',
      login: 'spammer',
      userId: '666',
      text: 'buy followers at spam dot com',
    });
    twitch.post(CHANNEL, {
      id: 'spam-2',
      login: 'spammer',
      userId: '666',
      text: 'cheap viewers right here',
    });
    post('kind', 'the spammer is back again sadly', { displayName: 'Kind' });
    twitch.clearChat(CHANNEL, { login: 'spammer', userId: '666' });
    await heardMatching(/spammer is back/);
    await settled();
    expect(submitted().join()).not.toMatch(/buy followers|cheap viewers/);
  });

  test('a whole chat clear drops everything waiting from that channel', async () => {
    post('first', 'first message before the clear', { displayName: 'First' });
    post('second', 'second message before the clear', { displayName: 'Second' });
    twitch.clearChat(CHANNEL);
    await settled();
    post('after', 'the chat after the clear is read', { displayName: 'After' });
    await heardMatching(/after the clear/);
    expect(submitted().join()).not.toContain('before the clear');
  });

  test('after a RECONNECT the chat is read again, nothing twice', async () => {
    const connections = twitch.connections;
    twitch.askReconnect();
    await until(() => twitch.connections > connections && twitch.joined(CHANNEL), 15_000);
    post('back', 'reading again after the reconnect', { displayName: 'Back' });
    await heardMatching(/after the reconnect/);
    expect(heard().filter((text) => /after the reconnect/.test(text))).toHaveLength(1);
  });
});

describe('Twitch chat: state', () => {
  test('/config twitch list counts what was read and dropped today; /metrics counts Twitch messages', async () => {
    const list = await config('twitch list').waitForReply();
    const counts = /today (\d+) read, (\d+) dropped/.exec(list.content ?? '');
    expect(Number(counts?.[1])).toBeGreaterThanOrEqual(8);
    expect(Number(counts?.[2])).toBeGreaterThanOrEqual(4);
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/tts_twitch_messages_total\{outcome="received"\} [1-9]/);
    expect(text).toMatch(/tts_twitch_messages_total\{outcome="read"\} [1-9]/);
    expect(text).toMatch(/tts_twitch_messages_total\{outcome="dropped"\} [1-9]/);
  });

  test('/config twitch remove parts the channel; its chat is no longer read', async () => {
    const removed = await config('twitch remove', { channel: CHANNEL }).waitForReply();
    expect(removed.content).toContain(`I no longer read the chat of \`${CHANNEL}\``);
    expect(removed.content).toContain('No Twitch channel is read');
    await until(() => !twitch.joined(CHANNEL));
  });
});

describe('Twitch chat: the server’s lifecycle', () => {
  test('removed from the server, its Twitch chat stops being read; added back, it is read again', async () => {
    const guildId = t.discord.guild.id;
    await config('twitch add', { channel: CHANNEL }).waitForReply();
    await until(() => twitch.joined(CHANNEL));
    t.discord.leaveGuild(guildId);
    await until(() => !twitch.joined(CHANNEL));
    t.discord.rejoinGuild(guildId);
    await until(() => twitch.joined(CHANNEL));
  });

  test('/config forget stops reading its Twitch chat at once', async () => {
    await until(() => twitch.joined(CHANNEL));
    const question = await config('forget').waitForReply();
    const confirm = t.discord.clickButton({
      user: 'admin',
      message: question,
      customId: 'config:forget:confirm',
    });
    await confirm.waitFor((event) => event.kind === 'edit', 10_000);
    await until(() => !twitch.joined(CHANNEL));
  });
});
