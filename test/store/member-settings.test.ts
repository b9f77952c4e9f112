/**
 * Members' own settings per server (`member:<guild>:<user>`): kept in the store, changed without
 * losing a concurrent change, forgotten per member and per server; and the records today's main
 * wrote (`user:<id>`, `guild:<id>`) read the same alongside them.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Keyv from 'keyv';
import { afterEach, describe, expect, test } from 'vitest';
import {
  KeyvMemberSettings,
  KeyvSettingsStore,
  normalizeSpokenName,
  openKeyv,
  SPOKEN_NAME_MAX,
} from '../../src/store/index.ts';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** A SQLite store in a fresh folder, as the bot opens it. */
async function sqliteStore(): Promise<{ url: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'member-settings-'));
  dirs.push(dir);
  return { url: `sqlite://${join(dir, 'bot.sqlite')}` };
}

describe('normalizeSpokenName', () => {
  test.each<[string, string | undefined]>([
    ['Rob', 'Rob'],
    ['  Rob  the   Great ', 'Rob the Great'],
    ['Rob\nby\tthe sea', 'Rob by the sea'],
    ['Zero\u200bwidth\u202Ebidi', 'Zero width bidi'],
    ['   ', undefined],
    ['\u200b\u200d', undefined],
    ['x'.repeat(SPOKEN_NAME_MAX + 10), 'x'.repeat(SPOKEN_NAME_MAX)],
    ['abc '.repeat(9), 'abc '.repeat(8).trim()],
    ['🎉'.repeat(40), '🎉'.repeat(SPOKEN_NAME_MAX)],
  ])('%j → %j', (raw, expected) => {
    expect(normalizeSpokenName(raw)).toBe(expected);
  });
});

describe('KeyvMemberSettings', () => {
  test('per server and member; unset or unreadable is {}; reset and forgetting a server delete', async () => {
    const keyv = new Keyv();
    const members = new KeyvMemberSettings(keyv);
    expect(await members.get('g1', 'u1')).toEqual({});
    await members.update('g1', 'u1', () => ({ read: false }));
    await members.update('g1', 'u1', (s) => ({ ...s, name: 'Rob', nameBy: 'member' }));
    await members.update('g1', 'u2', () => ({ name: 'Ann', nameBy: 'admin' }));
    await members.update('g12', 'u1', () => ({ read: false }));
    expect(await members.get('g1', 'u1')).toEqual({ read: false, name: 'Rob', nameBy: 'member' });
    expect(await members.get('g2', 'u1')).toEqual({});
    await keyv.set('member:g1:u3', { read: 'nope' });
    expect(await members.get('g1', 'u3')).toEqual({});
    expect(await members.forget('g1', 'u1')).toBe(true);
    expect(await members.get('g1', 'u1')).toEqual({});
    expect(await members.forgetGuild('g1')).toBe(2);
    expect(await members.get('g1', 'u2')).toEqual({});
    // Another server whose id starts the same keeps its members.
    expect(await members.get('g12', 'u1')).toEqual({ read: false });
  });

  test('two changes at once both land (compare-and-set), and survive reopening the store', async () => {
    const { url } = await sqliteStore();
    const keyv = await openKeyv(url);
    const members = new KeyvMemberSettings(keyv);
    await Promise.all([
      members.update('g1', 'u1', (s) => ({ ...s, read: false })),
      new KeyvMemberSettings(keyv).update('g1', 'u1', (s) => ({ ...s, name: 'Rob' })),
    ]);
    await keyv.disconnect();
    const reopened = await openKeyv(url);
    expect(await new KeyvMemberSettings(reopened).get('g1', 'u1')).toEqual({
      read: false,
      name: 'Rob',
    });
    await reopened.disconnect();
  });
});

describe('migration: records written by the version before member settings', () => {
  test('a member’s voice and language and a server’s settings read the same, and nobody is opted out', async () => {
    const { url } = await sqliteStore();
    const before = await openKeyv(url);
    // Exactly what main's `/myvoice` and `/config` stored.
    await before.set('user:u1', { voiceId: 'am_2riuownnf', language: 'de' });
    await before.set('user:u2', { voiceId: 'af_3kbq21leo' });
    await before.set('guild:g1', {
      defaults: { voiceId: 'af_3kbq21leo' },
      limits: {},
      reader: { channels: ['100'], ignoredMembers: ['200'] },
      dictionary: [],
      blockedWords: [],
    });
    await before.disconnect();
    const keyv = await openKeyv(url);
    const settings = new KeyvSettingsStore(keyv);
    const members = new KeyvMemberSettings(keyv);
    expect(await settings.user('u1')).toEqual({ voiceId: 'am_2riuownnf', language: 'de' });
    expect(await settings.user('u2')).toEqual({ voiceId: 'af_3kbq21leo' });
    const guild = await settings.guild('g1');
    expect(guild.reader.channels).toEqual(['100']);
    expect(guild.reader.ignoredMembers).toEqual(['200']);
    expect(await members.get('g1', 'u1')).toEqual({});
    await keyv.disconnect();
  });
});
