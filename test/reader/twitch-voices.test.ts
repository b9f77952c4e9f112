/**
 * Twitch chatters' `!voice` through the real source on a fake Twitch, with a key that owns a
 * cloned voice: a chat never picks the clone unless the server allows any voice, a choice is
 * kept in its own record (never the server's), written only when it changes and at most once
 * per cooldown, choices an earlier version kept in the server's record still read (moved), and
 * a server's messages waiting past the bound dropped and counted.
 */
import Keyv from 'keyv';
import { describe, expect, test } from 'vitest';
import { KeyvSettingsStore } from '../../src/store/index.ts';
import type { Voice } from '../../src/tts/index.ts';
import { until } from '../twitch/support.ts';
import { world } from './twitch-world.ts';

const voice = (voiceId: string, name: string, accent: string, free: boolean): Voice => ({
  ...{ voiceId, name, gender: 'Female', accent, free, description: '' },
});
/** A free voice, a premium one, and the key owner's clone (as the emulator's USER_TWO has). */
const VOICES = [
  voice('voice-lily', 'Lily', 'American', true),
  voice('voice-max', 'Max', 'British', true),
  voice('voice-bella', 'Bella', 'British', false),
  voice('adv_user_clone_xyz', 'Narrator Clone', 'Custom', false),
];

async function reading(options: Parameters<typeof world>[0] = {}) {
  const w = await world({ voices: VOICES, ...options });
  await w.channels('g1', ['streamer']);
  await w.source.sync('g1');
  await until(() => w.twitch.joined('streamer'));
  let n = 0;
  /** Posts `text` as chatter 11, then a line of theirs; resolves with that line's voice. */
  const voiceAfter = async (text: string, userId = '11'): Promise<string | undefined> => {
    n++;
    w.twitch.post('streamer', { id: `c${n}`, login: `u${userId}`, userId, text });
    w.twitch.post('streamer', { id: `l${n}`, login: `u${userId}`, userId, text: `line ${n}` });
    await until(() => w.created.some((m) => m.id === `twitch:l${n}`));
    return w.created.find((m) => m.id === `twitch:l${n}`)?.voiceId;
  };
  return { ...w, voiceAfter };
}

describe('!voice: which voices a chat may pick', () => {
  test('the clone is never chosen from chat: by its name, by “custom”, by “clone”; nor a premium voice', async () => {
    const w = await reading();
    for (const asked of [
      '!voice Narrator Clone',
      '!voice narrator',
      '!voice custom',
      '!voice clone',
    ])
      expect(await w.voiceAfter(asked), asked).toBeUndefined();
    expect(await w.voiceAfter('!voice Bella')).toBeUndefined();
    expect(await w.voiceAfter('!voice lily')).toBe('voice-lily');
    // The clone asked for after a voice that was allowed: the allowed one stays.
    expect(await w.voiceAfter('!voice clone')).toBe('voice-lily');
  });

  test('with chat-voices: any, a chatter may pick the clone; back to automatic, it is no longer used', async () => {
    const w = await reading();
    await w.store.updateGuild('g1', (g) => ({ ...g, reader: { ...g.reader, chatVoices: 'any' } }));
    expect(await w.voiceAfter('!voice Narrator Clone')).toBe('adv_user_clone_xyz');
    await w.store.updateGuild('g1', (g) => ({
      ...g,
      reader: { ...g.reader, chatVoices: 'automatic' },
    }));
    expect(await w.voiceAfter('hello again')).toBeUndefined();
  });
});

describe('!voice: floods', () => {
  test('a choice is its own record, never the server’s; nothing is written when nothing changes', async () => {
    const w = await reading();
    const sets: string[] = [];
    const set = w.keyv.set.bind(w.keyv);
    w.keyv.set = (key, ...rest) => {
      sets.push(String(key));
      return set(key, ...rest);
    };
    w.writes.length = 0;
    expect(await w.voiceAfter('!voice lily')).toBe('voice-lily');
    expect(sets).toEqual(['chat-voice:g1:11']);
    for (let i = 0; i < 5; i++) expect(await w.voiceAfter('!voice Lily')).toBe('voice-lily');
    expect(await w.voiceAfter('!voice nobody-by-that-name')).toBe('voice-lily');
    expect(sets).toEqual(['chat-voice:g1:11']);
    expect(w.writes).toEqual([]);
    expect((await w.store.guild('g1')).twitch.voices).toEqual({});
    expect(await w.chosenVoices.get('g1', '11')).toMatchObject({ voiceId: 'voice-lily' });
    // `!voice` alone: back to the automatic voice, its record gone.
    expect(await w.voiceAfter('!voice')).toBeUndefined();
    expect(await w.chosenVoices.get('g1', '11')).toBeUndefined();
  });

  test('a chatter’s second !voice within the cooldown is ignored; a name that matched none starts none', async () => {
    const w = await reading({ voiceCooldownMs: 60_000 });
    expect(await w.voiceAfter('!voice lilly-typo')).toBeUndefined();
    expect(await w.voiceAfter('!voice lily')).toBe('voice-lily');
    expect(await w.voiceAfter('!voice max')).toBe('voice-lily');
    // Another chatter has a cooldown of their own.
    expect(await w.voiceAfter('!voice max', '12')).toBe('voice-max');
  });

  test('a server’s messages past the bound are dropped unread and counted', async () => {
    const w = await world({ voices: VOICES, chainBound: 3 });
    await w.channels('g1', ['streamer']);
    await w.source.sync('g1');
    await until(() => w.twitch.joined('streamer'));
    const open = w.hold();
    for (let i = 0; i < 10; i++)
      w.twitch.post('streamer', { id: `f${i}`, login: 'u', userId: '1', text: `flood ${i}` });
    await until(() => w.source.overflow('g1') === 7);
    open();
    await until(() => w.created.length === 3);
    expect(w.created.map((m) => m.id)).toEqual(['twitch:f0', 'twitch:f1', 'twitch:f2']);
    expect(w.source.status('g1')[0]?.droppedToday).toBe(7);
  });
});

describe('!voice: choices kept by an earlier version', () => {
  test('voices stored in the server’s record still read, and move to their own records', async () => {
    const keyv = new Keyv();
    // As the previous version stored them: inside the server's record.
    await new KeyvSettingsStore(keyv).setGuild('g1', {
      reader: { twitchChannels: ['streamer'] },
      twitch: { voices: { '11': 'voice-max', '12': 'voice-lily' } },
    });
    const w = await reading({ keyv });
    expect(await w.voiceAfter('still max')).toBe('voice-max');
    expect(await w.voiceAfter('still lily', '12')).toBe('voice-lily');
    expect((await w.store.guild('g1')).twitch.voices).toEqual({});
    expect(await w.chosenVoices.get('g1', '11')).toMatchObject({ voiceId: 'voice-max' });
    expect(await w.voiceAfter('!voice lily')).toBe('voice-lily');
  });
});
