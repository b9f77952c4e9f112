import { describe, expect, test } from 'vitest';
import { FirstChatters } from '../../src/reader/first-chatters.ts';

describe('FirstChatters', () => {
  test("a first message marks the chatter's join; later messages keep that time", () => {
    const chatters = new FirstChatters();
    expect(chatters.joinedAt('streamer', '7', true, 1_000)).toBe(1_000);
    expect(chatters.joinedAt('streamer', '7', false, 5_000)).toBe(1_000);
    // A repeated first-msg tag (Twitch resends nothing like it, but a replayed line might) does not move it.
    expect(chatters.joinedAt('streamer', '7', true, 9_000)).toBe(1_000);
  });

  test('a chatter never seen with a first message is not known as new', () => {
    const chatters = new FirstChatters();
    expect(chatters.joinedAt('streamer', '8', false, 1_000)).toBeUndefined();
    expect(chatters.size).toBe(0);
  });

  test('channels are apart: new in one channel says nothing of another', () => {
    const chatters = new FirstChatters();
    chatters.joinedAt('a', '7', true, 1_000);
    expect(chatters.joinedAt('b', '7', false, 2_000)).toBeUndefined();
  });

  test('bounded per channel: a raid on one channel never evicts another channel’s newcomers', () => {
    const chatters = new FirstChatters(3);
    chatters.joinedAt('quiet', 'newcomer', true, 1);
    for (let i = 0; i < 10; i++) chatters.joinedAt('raided', `raider-${i}`, true, 2 + i);
    expect(chatters.joinedAt('quiet', 'newcomer', false, 20)).toBe(1);
    expect(chatters.size).toBe(4);
    chatters.forgetChannel('raided');
    expect(chatters.size).toBe(1);
  });

  test('bounded: past the capacity the oldest chatter is forgotten first', () => {
    const chatters = new FirstChatters(2);
    chatters.joinedAt('c', '1', true, 1);
    chatters.joinedAt('c', '2', true, 2);
    chatters.joinedAt('c', '3', true, 3);
    expect(chatters.size).toBe(2);
    expect(chatters.joinedAt('c', '1', false, 4)).toBeUndefined();
    expect(chatters.joinedAt('c', '2', false, 4)).toBe(2);
    expect(chatters.joinedAt('c', '3', false, 4)).toBe(3);
  });
});
