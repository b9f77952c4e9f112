/** A member's own settings after a `/myvoice` change: the reset first, then each option given (pure). */
import Keyv from 'keyv';
import { describe, expect, test } from 'vitest';
import {
  changeMember,
  isEmptyChange,
  type MemberChange,
  memberAfter,
  setSpokenName,
  userAfter,
} from '../../src/settings/index.ts';
import {
  KeyvMemberSettings,
  KeyvSettingsStore,
  type MemberSettings,
  type UserSettings,
} from '../../src/store/index.ts';

const USER: UserSettings = { voiceId: 'am_2riuownnf', language: 'de' };
const MEMBER: MemberSettings = { read: false, name: 'Rob', nameBy: 'admin' };

describe('userAfter', () => {
  test.each<[string, MemberChange, UserSettings]>([
    ['nothing', {}, USER],
    ['a voice', { voiceId: 'af_3kbq21leo' }, { voiceId: 'af_3kbq21leo', language: 'de' }],
    ['a language', { language: 'fr' }, { voiceId: 'am_2riuownnf', language: 'fr' }],
    ['reset voice', { reset: 'voice' }, { language: 'de' }],
    ['reset language', { reset: 'language' }, { voiceId: 'am_2riuownnf' }],
    ['reset name: voice and language stay', { reset: 'name' }, USER],
    ['reset everything', { reset: 'everything' }, {}],
    ['reset everything, then a voice', { reset: 'everything', voiceId: 'x' }, { voiceId: 'x' }],
    ['reset voice and set one', { reset: 'voice', voiceId: 'x' }, { voiceId: 'x', language: 'de' }],
    ['read and name leave it', { read: true, name: 'Bo' }, USER],
  ])('%s', (_, change, expected) => {
    expect(userAfter(USER, change)).toEqual(expected);
  });
});

describe('memberAfter', () => {
  test.each<[string, MemberSettings, MemberChange, MemberSettings]>([
    ['nothing', MEMBER, {}, MEMBER],
    ['opt out', {}, { read: false }, { read: false }],
    [
      'opt back in: nothing stored for it',
      MEMBER,
      { read: true },
      { name: 'Rob', nameBy: 'admin' },
    ],
    [
      'a name, as the member’s',
      MEMBER,
      { name: 'Bo' },
      { read: false, name: 'Bo', nameBy: 'member' },
    ],
    ['reset name: reading stays', MEMBER, { reset: 'name' }, { read: false }],
    ['reset voice: all stays', MEMBER, { reset: 'voice' }, MEMBER],
    ['reset everything', MEMBER, { reset: 'everything' }, {}],
    [
      'reset everything, then opt out',
      MEMBER,
      { reset: 'everything', read: false },
      { read: false },
    ],
    ['voice and language leave it', MEMBER, { voiceId: 'x', language: 'fr' }, MEMBER],
  ])('%s', (_, member, change, expected) => {
    expect(memberAfter(member, change)).toEqual(expected);
  });
});

test('isEmptyChange: only no option at all shows', () => {
  expect(isEmptyChange({})).toBe(true);
  expect(isEmptyChange({ reset: undefined, voiceId: undefined, read: undefined })).toBe(true);
  expect(isEmptyChange({ read: true })).toBe(false);
  expect(isEmptyChange({ reset: 'voice' })).toBe(false);
});

describe('changeMember and setSpokenName over a real store', () => {
  function stores() {
    const keyv = new Keyv();
    return { keyv, settings: new KeyvSettingsStore(keyv), members: new KeyvMemberSettings(keyv) };
  }

  test('reset everything deletes both records (the member’s own request to be forgotten)', async () => {
    const s = stores();
    await changeMember(s, 'g1', 'u1', { voiceId: 'v1', language: 'de', read: false, name: 'Bo' });
    await changeMember(s, 'g2', 'u1', { read: false });
    expect(await s.keyv.get('user:u1')).toEqual({ voiceId: 'v1', language: 'de' });
    expect(await s.keyv.get('member:g1:u1')).toEqual({ read: false, name: 'Bo', nameBy: 'member' });
    await changeMember(s, 'g1', 'u1', { reset: 'everything' });
    expect(await s.keyv.get('user:u1')).toBeUndefined();
    expect(await s.keyv.get('member:g1:u1')).toBeUndefined();
    // Another server's setting is that server's.
    expect(await s.members.get('g2', 'u1')).toEqual({ read: false });
  });

  test('an admin’s name keeps the member’s opt-out; clearing it keeps it too', async () => {
    const s = stores();
    await changeMember(s, 'g1', 'u1', { read: false });
    expect(await setSpokenName(s.members, 'g1', 'u1', 'Robert')).toEqual({
      read: false,
      name: 'Robert',
      nameBy: 'admin',
    });
    expect(await setSpokenName(s.members, 'g1', 'u1', undefined)).toEqual({ read: false });
  });
});
