import { describe, expect, test } from 'vitest';
import { type MessageFacts, readDecision } from '../../src/reader/filter.ts';
import { defaultReaderSettings, type ReaderSettings } from '../../src/store/index.ts';

const base: MessageFacts = {
  channelId: 'text',
  authorId: 'bob',
  self: false,
  bot: false,
  webhook: false,
  roleIds: ['fans'],
  authorVoiceChannelId: 'voice',
  content: 'hello there',
};
const settings = (change: Partial<ReaderSettings> = {}): ReaderSettings => ({
  ...defaultReaderSettings(),
  channels: ['text'],
  ...change,
});

describe('readDecision', () => {
  test.each<[string, Partial<MessageFacts>, Partial<ReaderSettings>, string | undefined, unknown]>([
    ['a member in a read channel', {}, {}, 'voice', { read: true }],
    ['a forward by default', { forward: true }, {}, 'voice', { read: false, why: 'forward' }],
    ['a forward with forwards on', { forward: true }, { forwards: true }, 'voice', { read: true }],
    [
      'another channel',
      { channelId: 'other' },
      {},
      'voice',
      { read: false, why: 'not-a-read-channel' },
    ],
    [
      'the bot itself',
      { self: true, bot: true },
      { readBots: 'all' },
      'voice',
      { read: false, why: 'own-message' },
    ],
    ['a bot by default', { bot: true }, {}, 'voice', { read: false, why: 'bot' }],
    [
      'a bot with read-bots webhooks',
      { bot: true },
      { readBots: 'webhooks' },
      'voice',
      { read: false, why: 'bot' },
    ],
    ['a bot with read-bots all', { bot: true }, { readBots: 'all' }, 'voice', { read: true }],
    [
      'a webhook by default',
      { bot: true, webhook: true },
      {},
      'voice',
      { read: false, why: 'bot' },
    ],
    [
      'a webhook with read-bots webhooks',
      { bot: true, webhook: true },
      { readBots: 'webhooks' },
      'voice',
      { read: true },
    ],
    [
      'an ignored member',
      {},
      { ignoredMembers: ['bob'] },
      'voice',
      { read: false, why: 'ignored-member' },
    ],
    [
      'an ignored role',
      {},
      { ignoredRoles: ['fans'] },
      'voice',
      { read: false, why: 'ignored-role' },
    ],
    [
      'a ! command',
      { content: '  !play song' },
      {},
      'voice',
      { read: false, why: 'ignored-prefix' },
    ],
    [
      'a ! command behind invisible characters',
      { content: '\u200b\u2060 \u200e!play song' },
      {},
      'voice',
      { read: false, why: 'ignored-prefix' },
    ],
    [
      'a prefix with an invisible character inside',
      { content: '!\u200bplay song' },
      { ignorePrefixes: ['!play'] },
      'voice',
      { read: false, why: 'ignored-prefix' },
    ],
    [
      'custom prefixes',
      { content: '?help' },
      { ignorePrefixes: ['?', '$'] },
      'voice',
      { read: false, why: 'ignored-prefix' },
    ],
    [
      '! when prefixes are cleared',
      { content: '!wow' },
      { ignorePrefixes: [] },
      'voice',
      { read: true },
    ],
    ['the bot in no voice channel', {}, {}, undefined, { read: false, why: 'not-in-voice' }],
    [
      'auto-join with the author in voice',
      {},
      { autoJoin: true },
      undefined,
      { read: true, join: 'voice' },
    ],
    [
      'auto-join with the author not in voice',
      { authorVoiceChannelId: undefined },
      { autoJoin: true },
      undefined,
      { read: false, why: 'not-in-voice' },
    ],
    [
      'voice-members-only, author elsewhere',
      { authorVoiceChannelId: 'afk' },
      { voiceMembersOnly: true },
      'voice',
      { read: false, why: 'not-listening' },
    ],
    [
      'voice-members-only, author listening',
      {},
      { voiceMembersOnly: true },
      'voice',
      { read: true },
    ],
    // Issue 30: @silent messages, and the chat of the bot's voice channel.
    [
      'an @silent message by default',
      { silent: true },
      {},
      'voice',
      { read: false, why: 'silent' },
    ],
    [
      'an @silent message with silent: read',
      { silent: true },
      { silent: 'read' },
      'voice',
      { read: true },
    ],
    [
      "the bot's voice channel chat, voice-chat off (the default)",
      { channelId: 'voice' },
      {},
      'voice',
      { read: false, why: 'not-a-read-channel' },
    ],
    [
      "the bot's voice channel chat, voice-chat on",
      { channelId: 'voice' },
      { voiceChat: true },
      'voice',
      { read: true },
    ],
    [
      "another voice channel's chat, voice-chat on",
      { channelId: 'voice2' },
      { voiceChat: true },
      'voice',
      { read: false, why: 'not-a-read-channel' },
    ],
    [
      'a voice chat while the bot is in no voice channel',
      { channelId: 'voice' },
      { voiceChat: true, autoJoin: true },
      undefined,
      { read: false, why: 'not-a-read-channel' },
    ],
    [
      'the voice chat, an author not in the call, voice-members-only',
      { channelId: 'voice', authorVoiceChannelId: undefined },
      { voiceChat: true, voiceMembersOnly: true },
      'voice',
      { read: false, why: 'not-listening' },
    ],
    [
      'the voice chat, an ignored prefix',
      { channelId: 'voice', content: '!skip' },
      { voiceChat: true },
      'voice',
      { read: false, why: 'ignored-prefix' },
    ],
    [
      'an @silent message in the voice chat',
      { channelId: 'voice', silent: true },
      { voiceChat: true },
      'voice',
      { read: false, why: 'silent' },
    ],
  ])('%s', (_, facts, change, botChannel, decision) => {
    expect(readDecision({ ...base, ...facts }, settings(change), botChannel)).toEqual(decision);
  });
});
