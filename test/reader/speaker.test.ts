/** Who the reader says a message is from, after the member's own settings (pure). */
import { describe, expect, test } from 'vitest';
import { type SpeakerFacts, speakerOf } from '../../src/reader/index.ts';
import type { MemberSettings } from '../../src/store/index.ts';

const discord: SpeakerFacts = { authorName: 'Bobby the Great' };
const twitch: SpeakerFacts = { authorName: 'viewer42', twitchChannel: 'streamer' };

describe('speakerOf', () => {
  test.each<[string, SpeakerFacts, MemberSettings, ReturnType<typeof speakerOf>]>([
    ['nothing set: read, by nickname', discord, {}, { read: true, name: 'Bobby the Great' }],
    [
      'read on: read, by nickname',
      discord,
      { read: true },
      { read: true, name: 'Bobby the Great' },
    ],
    ['opted out: not read', discord, { read: false }, { read: false }],
    ['opted out with a name: not read', discord, { read: false, name: 'Rob' }, { read: false }],
    ['a spoken name', discord, { name: 'Rob', nameBy: 'member' }, { read: true, name: 'Rob' }],
    ['an admin’s name', discord, { name: 'Bob B', nameBy: 'admin' }, { read: true, name: 'Bob B' }],
    [
      'a Twitch chatter: never opted out',
      twitch,
      { read: false },
      { read: true, name: 'viewer42' },
    ],
    ['a Twitch chatter: own name', twitch, { name: 'Rob' }, { read: true, name: 'viewer42' }],
  ])('%s', (_, message, member, expected) => {
    expect(speakerOf(message, member)).toEqual(expected);
  });
});
