/**
 * Chatters' `!voice` choices on their own, with a fake clock and real in-memory stores: which
 * voices a chat may pick (table), the cooldown ending, and a server's bounded chain of work.
 */
import Keyv from 'keyv';
import pino from 'pino';
import { describe, expect, test } from 'vitest';
import { ChatVoiceChoices, pickableVoices } from '../../src/reader/chat-voice-choices.ts';
import { SerialChains } from '../../src/reader/serial-chains.ts';
import { KeyvChatVoices, KeyvSettingsStore } from '../../src/store/index.ts';
import type { Voice } from '../../src/tts/index.ts';
import { FakeClock } from '../support/fake-clock.ts';

const voice = (voiceId: string, accent: string, free: boolean): Voice => ({
  ...{ voiceId, name: voiceId, gender: 'Female', accent, free, description: '' },
});
const FREE = voice('free', 'American', true);
const PREMIUM = voice('premium', 'British', false);
const CLONE = voice('clone', 'Custom', false);

describe('pickableVoices', () => {
  test.each([
    ['automatic: the free voices only', [FREE, PREMIUM, CLONE], 'automatic', ['free']],
    [
      'automatic without a free voice: every voice but clones',
      [PREMIUM, CLONE],
      'automatic',
      ['premium'],
    ],
    ['automatic with only a clone: none', [CLONE], 'automatic', []],
    [
      'any: every voice, the clone included',
      [FREE, PREMIUM, CLONE],
      'any',
      ['free', 'premium', 'clone'],
    ],
  ] as const)('%s', (_, voices, mode, ids) => {
    expect(pickableVoices(voices, mode).map((v) => v.voiceId)).toEqual(ids);
  });
});

describe('ChatVoiceChoices', () => {
  test('the cooldown ends: a chatter may change their voice again after it', async () => {
    const clock = new FakeClock();
    const keyv = new Keyv();
    const settings = new KeyvSettingsStore(keyv);
    const store = new KeyvChatVoices(keyv);
    const choices = new ChatVoiceChoices({
      store,
      settings,
      voices: async () => [FREE, voice('other', 'American', true)],
      clock,
      logger: pino({ level: 'silent' }),
      cooldownMs: 10_000,
    });
    const guild = await settings.guild('g1');
    expect(await choices.choose('g1', guild, '11', 'free')).toBe('changed');
    await clock.advance(9_999);
    expect(await choices.choose('g1', guild, '11', 'other')).toBe('cooling');
    await clock.advance(1);
    expect(await choices.choose('g1', guild, '11', 'other')).toBe('changed');
    expect(await choices.voiceOf('g1', guild, '11')).toBe('other');
  });
});

describe('SerialChains', () => {
  test('runs a key’s tasks in order; past the bound a droppable task is dropped and counted, a withdrawal never', async () => {
    const errors: unknown[] = [];
    const chains = new SerialChains((error) => errors.push(error), 2);
    const ran: string[] = [];
    const gate = Promise.withResolvers<void>();
    expect(chains.run('g', async () => gate.promise)).toBe(true);
    expect(chains.run('g', async () => void ran.push('second'))).toBe(true);
    expect(chains.run('g', async () => void ran.push('dropped'))).toBe(false);
    expect(chains.run('g', async () => void ran.push('withdrawal'), false)).toBe(true);
    expect(chains.run('other', async () => void ran.push('other'))).toBe(true);
    expect(chains.dropped('g')).toBe(1);
    gate.resolve();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(ran).toEqual(['other', 'second', 'withdrawal']);
    expect(chains.run('g', async () => void ran.push('again'))).toBe(true);
    chains.forget('g');
    expect(chains.dropped('g')).toBe(0);
    expect(errors).toEqual([]);
  });
});
