/**
 * Twitch messages as the reader's input, pure: namespaced ids, emotes in the cleanup's form,
 * the filter's Twitch rules (the server's channels, badges, prefixes) and `/me` composed as
 * "X …".
 */
import { describe, expect, test } from 'vitest';
import {
  composeBatch,
  ENGLISH_PHRASES,
  readDecision,
  twitchIncoming,
  withEmotes,
} from '../../src/reader/index.ts';
import { cleanMessage } from '../../src/reader/text.ts';
import { defaultReaderSettings, type ReaderSettings } from '../../src/store/index.ts';
import { parseEmotes } from '../../src/twitch/events.ts';
import type { TwitchMessage } from '../../src/twitch/index.ts';

const message = (change: Partial<TwitchMessage> = {}): TwitchMessage => ({
  kind: 'message',
  channel: 'streamer',
  roomId: '1',
  id: 'abc',
  userId: '42',
  login: 'ronni_tv',
  displayName: 'RonniTV',
  text: 'hello chat',
  isAction: false,
  badges: new Set(),
  emotes: [],
  firstMessage: false,
  sentAt: 0,
  ...change,
});
const withText = (text: string, emotes: string): TwitchMessage =>
  message({ text, emotes: parseEmotes(emotes, text) });
const settings = (change: Partial<ReaderSettings> = {}): ReaderSettings => ({
  ...defaultReaderSettings(),
  twitchChannels: ['streamer'],
  ...change,
});

describe('twitchIncoming', () => {
  test('ids, author and channel are namespaced; the display name is the author’s name', () => {
    const incoming = twitchIncoming(message(), 'guild-1');
    expect(incoming).toMatchObject({
      id: 'twitch:abc',
      guildId: 'guild-1',
      authorId: 'twitch:42',
      channelId: 'twitch:streamer',
      authorName: 'RonniTV',
      twitchChannel: 'streamer',
      self: false,
      bot: false,
      webhook: false,
    });
    expect(incoming.action).toBeUndefined();
    expect(twitchIncoming(message({ isAction: true }), 'g').action).toBe(true);
  });

  test('a first-time chatter is held by new-member-delay from when they were first seen', () => {
    const held = settings({ newMemberDelayMs: 600_000 });
    const firstSeen = 1_000_000;
    const incoming = twitchIncoming(message({ firstMessage: true }), 'g', firstSeen);
    expect(incoming.joinedAt).toBe(firstSeen);
    expect(readDecision(incoming, held, 'voice', firstSeen + 599_999)).toEqual({
      read: false,
      why: 'new-member',
    });
    expect(readDecision(incoming, held, 'voice', firstSeen + 600_000).read).toBe(true);
    // A first-time chatter's redemption or cheer was paid for: not held.
    const paid = twitchIncoming(message({ firstMessage: true }), 'g', firstSeen, {
      text: 'hi',
      paid: true,
    });
    expect(readDecision(paid, held, 'voice', firstSeen + 1).read).toBe(true);
    // Never seen as new (no first-msg since the bot started): read as any chatter.
    expect(twitchIncoming(message(), 'g').joinedAt).toBeUndefined();
    expect(readDecision(twitchIncoming(message(), 'g'), held, 'voice', firstSeen).read).toBe(true);
  });

  test('a cheer carries its bits and its words without cheermotes; the reader says the bits in the line’s language', () => {
    const text = 'Cheer100 see you at party2';
    const cheer = twitchIncoming(message({ text, bits: 100 }), 'g', undefined, {
      text: 'see you at party2',
      paid: true,
      bits: 100,
    });
    expect(cheer).toMatchObject({ cheer: 100, action: true });
    expect(cheer.message.content).toBe('see you at party2');
    expect(twitchIncoming(message({ text }), 'g')).not.toHaveProperty('cheer');
  });

  test('known chat bots (Nightbot, StreamElements…) are bots: read-bots decides, and by default they are not read', () => {
    const nightbot = twitchIncoming(
      message({ login: 'Nightbot', badges: new Set(['moderator']) }),
      'g',
    );
    expect(nightbot.bot).toBe(true);
    expect(readDecision(nightbot, settings(), 'voice')).toEqual({ read: false, why: 'bot' });
    expect(readDecision(nightbot, settings({ readBots: 'all' }), 'voice').read).toBe(true);
    expect(twitchIncoming(message({ login: 'nightbot_fan' }), 'g').bot).toBe(false);
  });

  test.each([
    [
      'word emotes become custom emoji',
      'Kappa nice PogChamp',
      '25:0-4/88:11-18',
      '<:Kappa:0> nice <:PogChamp:0>',
    ],
    ['smileys become their emoji', 'hi <3 :)', '9:3-4/1:6-7', 'hi ❤️ 🙂'],
    ['no emotes: the text as sent', 'plain text', '', 'plain text'],
    ['positions count code points', '🔥 Kappa', '25:2-6', '🔥 <:Kappa:0>'],
  ])('%s', (_, text, emotes, expected) => {
    expect(withEmotes(withText(text, emotes))).toBe(expected);
  });

  test.each([
    ['names', 'Kappa that was close', 'Kappa that was close'],
    ['drop', 'that was close', 'that was close'],
  ] as const)('the emoji setting %s applies to emotes', (emoji, _, expected) => {
    const incoming = twitchIncoming(withText('Kappa that was close', '25:0-4'), 'g');
    const options = { ...settings(), emoji };
    expect(cleanMessage(incoming.message, incoming.names, options, ENGLISH_PHRASES).text).toBe(
      expected,
    );
  });

  test('an emote-only message says nothing with emoji: drop', () => {
    const incoming = twitchIncoming(withText('Kappa Kappa', '25:0-4,6-10'), 'g');
    const options = { ...settings(), emoji: 'drop' as const };
    expect(cleanMessage(incoming.message, incoming.names, options, ENGLISH_PHRASES).text).toBe('');
  });
});

describe('readDecision for Twitch', () => {
  const decide = (change: Partial<TwitchMessage>, with_: Partial<ReaderSettings> = {}) =>
    readDecision(twitchIncoming(message(change), 'g'), settings(with_), 'voice');

  test.each<[string, Partial<TwitchMessage>, Partial<ReaderSettings>, unknown]>([
    ['a channel the server reads', {}, {}, { read: true }],
    ['a channel it does not', { channel: 'other' }, {}, { read: false, why: 'not-a-read-channel' }],
    ['an ignored prefix', { text: '!discord' }, {}, { read: false, why: 'ignored-prefix' }],
    ['badges: none kept reads everyone', {}, { twitchBadges: [] }, { read: true }],
    [
      'badges: a chatter without one of them',
      { badges: new Set(['subscriber']) },
      { twitchBadges: ['moderator', 'vip'] },
      { read: false, why: 'badge' },
    ],
    [
      'badges: a chatter with one of them',
      { badges: new Set(['vip', 'subscriber']) },
      { twitchBadges: ['moderator', 'vip'] },
      { read: true },
    ],
    ['voice-members-only does not apply to Twitch', {}, { voiceMembersOnly: true }, { read: true }],
  ])('%s', (_, change, with_, expected) => {
    expect(decide(change, with_)).toEqual(expected);
  });

  test('not in voice: not read, and auto-join cannot join a Twitch chatter', () => {
    const incoming = twitchIncoming(message(), 'g');
    expect(readDecision(incoming, settings({ autoJoin: true }), undefined)).toEqual({
      read: false,
      why: 'not-in-voice',
    });
  });

  test('a Discord message in a channel id that looks like a Twitch one is not read', () => {
    const incoming = { ...twitchIncoming(message(), 'g'), twitchChannel: undefined };
    const { twitchChannel: _, ...discord } = incoming;
    expect(readDecision(discord, settings(), 'voice')).toEqual({
      read: false,
      why: 'not-a-read-channel',
    });
  });
});

describe('/me actions', () => {
  test('are read as "X …", always named', () => {
    const line = { authorId: 't', authorName: 'RonniTV', text: 'waves at chat', at: 0 };
    const text = composeBatch(
      [
        { ...line, kind: 'did' },
        { ...line, kind: 'did', at: 1 },
      ],
      {
        saidPrefix: true,
        minLength: 0,
        last: undefined,
        phrases: ENGLISH_PHRASES,
      },
    ).text;
    expect(text).toBe('RonniTV waves at chat. RonniTV waves at chat.');
  });
});
