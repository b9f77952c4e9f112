/**
 * The Twitch source on the real chat client and the fake Twitch server, with a recording
 * reader: servers start reading their channels at start and on sync, share one connection and
 * one JOIN per channel, each get every message (ids namespaced), and moderation is withdrawn
 * from each of them.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { until } from '../twitch/support.ts';
import { world } from './twitch-world.ts';

describe('TwitchSource', () => {
  test('at start, servers with Twitch channels read them; two servers share one JOIN and both get each message', async () => {
    const w = await world();
    await w.channels('g1', ['streamer']);
    await w.channels('g2', ['streamer', 'other']);
    await w.source.start(['g1', 'g2', 'g3']);
    await until(() => w.twitch.joined('streamer') && w.twitch.joined('other'));
    expect(w.twitch.joins.filter((c) => c === 'streamer')).toHaveLength(1);
    expect(w.twitch.connections).toBe(1);
    w.twitch.post('streamer', { id: 'm1', login: 'ronni', userId: '7', text: 'hello both' });
    await until(() => w.created.length === 2);
    expect(w.created.map((m) => [m.guildId, m.id, m.authorId]).sort()).toEqual([
      ['g1', 'twitch:m1', 'twitch:7'],
      ['g2', 'twitch:m1', 'twitch:7'],
    ]);
    await until(() => w.source.status('g1')[0]?.readToday === 1);
    expect(w.source.status('g2').map((s) => s.channel)).toEqual(['streamer', 'other']);
    expect(w.counts.filter((c) => c === 'received')).toHaveLength(1);
  });

  test('moderation is withdrawn from every server: a deleted message, a timed-out chatter, a cleared chat', async () => {
    const w = await world();
    await w.channels('g1', ['streamer']);
    await w.source.sync('g1');
    await until(() => w.twitch.joined('streamer'));
    const post = (id: string, userId: string) =>
      w.twitch.post('streamer', { id, login: `u${userId}`, userId, text: `message ${id}` });
    post('a', '1');
    post('b', '2');
    post('c', '2');
    post('d', '3');
    post('e', '4');
    await until(() => w.created.length === 5);
    w.twitch.deleteMessage('streamer', 'a', 'u1');
    await until(() => w.withdrawn.length === 1);
    w.twitch.clearChat('streamer', { login: 'u2', userId: '2' });
    await until(() => w.withdrawn.length === 3);
    w.twitch.clearChat('streamer');
    await until(() => w.withdrawn.length === 5);
    expect(w.withdrawn).toEqual([
      'g1 twitch:a',
      'g1 twitch:b',
      'g1 twitch:c',
      'g1 twitch:d',
      'g1 twitch:e',
    ]);
    expect(w.source.status('g1')).toEqual([
      { channel: 'streamer', connected: true, readToday: 5, droppedToday: 5 },
    ]);
  });

  test('a message the reader does not take is counted dropped; sync after removal parts the channel', async () => {
    const w = await world();
    await w.channels('g1', ['streamer']);
    await w.source.sync('g1');
    await until(() => w.twitch.joined('streamer'));
    w.twitch.post('streamer', { id: 'x', login: 'u', userId: '1', text: 'please skip me' });
    await until(() => w.source.status('g1')[0]?.droppedToday === 1);
    await w.channels('g1', []);
    expect(await w.source.sync('g1')).toEqual([]);
    await until(() => w.twitch.parts.includes('streamer'));
    expect(w.source.status('g1')).toEqual([]);
  });

  test('a server not in voice drops each message before reading its settings (20 servers, 50 messages: no read)', async () => {
    const servers = Array.from({ length: 20 }, (_, i) => `quiet-${i}`);
    const w = await world({ notInVoice: servers });
    for (const guildId of servers) await w.channels(guildId, ['streamer']);
    await w.source.start(servers);
    await until(() => w.twitch.joined('streamer'));
    w.reads.length = 0;
    for (let i = 0; i < 50; i++)
      w.twitch.post('streamer', { id: `q${i}`, login: 'u', userId: '1', text: `message ${i}` });
    await until(() => w.counts.filter((c) => c === 'dropped').length === 50 * servers.length);
    expect(w.reads).toEqual([]);
    expect(w.created).toEqual([]);
    // What waited from before is dropped, as the reader does out of voice.
    expect(new Set(w.cleared)).toEqual(new Set(servers));
    expect(w.source.status('quiet-0')[0]?.droppedToday).toBe(50);
  });

  test('a server whose settings no longer list the channel (forgotten) stops reading it at its next message', async () => {
    const w = await world();
    await w.channels('g1', ['streamer']);
    await w.channels('g2', ['streamer']);
    await w.source.start(['g1', 'g2']);
    await until(() => w.twitch.joined('streamer'));
    await w.channels('g1', []);
    w.twitch.post('streamer', { id: 'y', login: 'u', userId: '1', text: 'skip this one' });
    await until(() => w.source.status('g1').length === 0);
    expect(w.source.status('g2').map((s) => s.channel)).toEqual(['streamer']);
  });

  test("a first-time chatter's first message and the ones after it carry when they were first seen", async () => {
    const w = await world();
    await w.channels('g1', ['streamer']);
    await w.source.sync('g1');
    await until(() => w.twitch.joined('streamer'));
    const before = Date.now();
    w.twitch.post('streamer', {
      id: 'n1',
      login: 'raider',
      userId: '9',
      text: 'hi',
      firstMessage: true,
    });
    w.twitch.post('streamer', { id: 'n2', login: 'raider', userId: '9', text: 'again' });
    w.twitch.post('streamer', { id: 'o1', login: 'regular', userId: '3', text: 'hello' });
    await until(() => w.created.length === 3);
    const [first, second, other] = w.created;
    expect(first?.joinedAt).toBeGreaterThanOrEqual(before);
    expect(second?.joinedAt).toBe(first?.joinedAt);
    expect(other?.joinedAt).toBeUndefined();
  });

  test('out of voice, a moderator’s chat command is still obeyed; plain chat is still dropped unread', async () => {
    const w = await world({ notInVoice: ['quiet'] });
    await w.channels('quiet', ['streamer']);
    await w.source.sync('quiet');
    await until(() => w.twitch.joined('streamer'));
    w.reads.length = 0;
    w.twitch.post('streamer', { id: 'p1', login: 'u', userId: '1', text: 'plain' });
    w.twitch.post('streamer', {
      id: 'c1',
      login: 'mod',
      userId: '2',
      text: '!tts mute Troll',
      badges: 'moderator/1',
    });
    await until(async () => (await w.store.guild('quiet')).twitch.muted.includes('troll'));
    expect(w.reads).toEqual(['quiet']);
    expect(w.created).toEqual([]);
  });

  test('learnReward: the next redemption with text teaches the reward (any id); none in time, undefined', async () => {
    const w = await world();
    await w.channels('g1', ['streamer']);
    await w.source.sync('g1');
    await until(() => w.twitch.joined('streamer'));
    expect(await w.source.learnReward('g1', 50)).toBeUndefined();
    const rewardId = randomUUID();
    const learning = w.source.learnReward('g1', 10_000);
    w.twitch.post('streamer', {
      id: 'r0',
      login: 'u',
      userId: '1',
      text: ' ',
      rewardId: randomUUID(),
    });
    w.twitch.post('streamer', { id: 'r1', login: 'ronni', userId: '7', text: 'hi', rewardId });
    expect(await learning).toEqual({ rewardId, channel: 'streamer', displayName: 'ronni' });
    expect((await w.store.guild('g1')).twitch.rewardId).toBe(rewardId);
  });

  test('a moderator’s mute withdraws what the muted chatter already has waiting, in that server', async () => {
    const w = await world();
    await w.channels('g1', ['streamer']);
    await w.source.sync('g1');
    await until(() => w.twitch.joined('streamer'));
    w.twitch.post('streamer', { id: 't1', login: 'Troll', userId: '66', text: 'spam one' });
    w.twitch.post('streamer', { id: 'o1', login: 'other', userId: '67', text: 'fine' });
    await until(() => w.created.length === 2);
    w.twitch.post('streamer', {
      id: 'm1',
      login: 'mod',
      userId: '2',
      text: '!tts mute troll',
      badges: 'moderator/1',
    });
    await until(() => w.withdrawn.length === 1);
    expect(w.withdrawn).toEqual(['g1 twitch:t1']);
    w.twitch.post('streamer', { id: 't2', login: 'troll', userId: '66', text: 'spam two' });
    w.twitch.post('streamer', { id: 'o2', login: 'other', userId: '67', text: 'still fine' });
    await until(() => w.created.length === 3);
    expect(w.created.map((m) => m.id)).toEqual(['twitch:t1', 'twitch:o1', 'twitch:o2']);
  });

  test('a moderator’s mute of the broadcaster is refused; a muted moderator’s !tts resume works', async () => {
    const w = await world();
    await w.channels('g1', ['streamer']);
    await w.source.sync('g1');
    await until(() => w.twitch.joined('streamer'));
    const mod = { badges: 'moderator/1' };
    w.twitch.post('streamer', {
      id: 'm1',
      login: 'mod_a',
      userId: '2',
      text: '!tts mute streamer',
      ...mod,
    });
    w.twitch.post('streamer', {
      id: 'm2',
      login: 'mod_b',
      userId: '3',
      text: '!tts mute mod_a',
      ...mod,
    });
    w.twitch.post('streamer', {
      id: 'm3',
      login: 'mod_b',
      userId: '3',
      text: '!tts pause',
      ...mod,
    });
    await until(async () => (await w.store.guild('g1')).twitch.paused);
    expect((await w.store.guild('g1')).twitch.muted).toEqual(['mod_a']);
    // Muted, mod_a still commands: resume and unmute themselves.
    w.twitch.post('streamer', {
      id: 'm4',
      login: 'mod_a',
      userId: '2',
      text: '!tts resume',
      ...mod,
    });
    await until(async () => !(await w.store.guild('g1')).twitch.paused);
    w.twitch.post('streamer', {
      id: 'm5',
      login: 'mod_a',
      userId: '2',
      text: '!tts unmute mod_a',
      ...mod,
    });
    await until(async () => (await w.store.guild('g1')).twitch.muted.length === 0);
    const broadcaster = { badges: 'broadcaster/1' };
    w.twitch.post('streamer', {
      id: 'b1',
      login: 'streamer',
      userId: '1',
      text: 'still heard',
      ...broadcaster,
    });
    await until(() => w.created.some((m) => m.id === 'twitch:b1'));
  });
});
