/**
 * Issue 31, a voice that speaks the language: where the voice list tells which language a
 * voice speaks (its accent), a chatter's automatic voice and `/say`'s default come from those
 * for a line in that language; a voice the member chose is kept, the language still sent. On
 * the v3 emulator, with two of its free voices listed as Japanese (its own are all English).
 */
import Keyv from 'keyv';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { PreviewCache } from '../../src/preview/index.ts';
import { pickVoice, SpeakingService } from '../../src/speaking/index.ts';
import { voiceLanguages, voicesSpeaking } from '../../src/speech/index.ts';
import { KeyvSettingsStore, KeyvUsageLedger } from '../../src/store/index.ts';
import { systemClock, type TtsClient, type Voice } from '../../src/tts/index.ts';
import { type Emulator, startEmulator, USER_ONE } from '../../tools/emulator/index.ts';
import { FAST_V3, v3ClientsFor } from '../tts/v3-emulated.ts';
import { newGuildId, quietLogger } from '../voice/support.ts';

/** The emulator's free British voices, listed here as Japanese. */
const JAPANESE = new Set(['bf_jp71qvnzd', 'bm_5tyh0q2xw']);
const relabel = (voices: Voice[]): Voice[] =>
  voices.map((voice) => (JAPANESE.has(voice.voiceId) ? { ...voice, accent: 'Japanese' } : voice));

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator(FAST_V3);
});
afterAll(async () => {
  await emulator?.close();
});

/** The real v3 client of the key, its voice list relabelled. */
function relabelled(client: TtsClient): TtsClient {
  return new Proxy(client, {
    get(target, property) {
      if (property === 'voices')
        return async (...args: Parameters<TtsClient['voices']>) =>
          relabel(await target.voices(...args));
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

function service(settings: KeyvSettingsStore) {
  const { clients } = v3ClientsFor(emulator);
  return new SpeakingService({
    settings,
    apiKeyOf: async () => USER_ONE.apiKey,
    tts: { forKey: (key: string) => relabelled(clients.forKey(key)) },
    voice: { channelOf: () => undefined, speak: () => ({ ok: false, reason: 'not_connected' }) },
    usage: new KeyvUsageLedger(new Keyv()),
    previews: new PreviewCache(new Keyv()),
    dailyLimit: undefined,
    clock: systemClock,
    logger: quietLogger,
    minTextLength: 30,
  });
}

describe('voices that speak the language', () => {
  test('the list tells a voice’s language by its accent; clones say nothing', () => {
    expect(voiceLanguages({ accent: 'British' })).toEqual(['en']);
    expect(voiceLanguages({ accent: 'Japanese' })).toEqual(['ja']);
    expect(voiceLanguages({ accent: 'Custom' })).toEqual([]);
    expect(voicesSpeaking([{ accent: 'American' }], 'ja')).toBeUndefined();
    expect(voicesSpeaking([{ accent: 'American' }], undefined)).toBeUndefined();
  });

  test('/say’s default voice speaks the line’s language where one does; a voice asked for is kept', () => {
    const voice = (voiceId: string, accent: string, free: boolean): Voice => ({
      voiceId,
      name: voiceId,
      gender: '',
      accent,
      free,
      description: '',
    });
    const voices = [
      voice('en_free', 'American', true),
      voice('ja_paid', 'Japanese', false),
      voice('ja_free', 'Japanese', true),
    ];
    expect(pickVoice(voices, undefined, 'base').voiceId).toBe('en_free');
    expect(pickVoice(voices, undefined, 'base', 'ja').voiceId).toBe('ja_free');
    expect(pickVoice(voices, undefined, 'base', 'en').voiceId).toBe('en_free');
    // No voice is known to speak French: as before.
    expect(pickVoice(voices, undefined, 'base', 'fr').voiceId).toBe('en_free');
    expect(pickVoice(voices, 'en_free', 'base', 'ja').voiceId).toBe('en_free');
  });

  test('a chatter’s automatic voice: a Japanese one for Japanese lines, their own for the others, each kept', async () => {
    const settings = new KeyvSettingsStore(new Keyv());
    const guildId = newGuildId();
    await settings.updateGuild(guildId, (guild) => ({
      ...guild,
      defaults: { ...guild.defaults, language: 'en' },
    }));
    const speaking = service(settings);
    const voiceFor = async (chatter: string, text: string) =>
      (await speaking.chatVoice(guildId, { id: chatter, name: chatter }, text)).request;
    for (const chatter of ['twitch:1', 'twitch:2', 'twitch:3', 'twitch:4', 'twitch:5']) {
      const japanese = await voiceFor(chatter, 'ありがとう、助かりました');
      expect(japanese.language).toBe('ja');
      expect(JAPANESE.has(japanese.voiceId)).toBe(true);
      const english = await voiceFor(chatter, 'lol');
      expect(english.language).toBe('en');
      expect(JAPANESE.has(english.voiceId)).toBe(false);
      expect((await voiceFor(chatter, 'もう寝ます、おやすみなさい')).voiceId).toBe(
        japanese.voiceId,
      );
      expect((await voiceFor(chatter, 'gg')).voiceId).toBe(english.voiceId);
    }
  });

  test('a member’s chosen voice is kept, and the language still sent', async () => {
    const settings = new KeyvSettingsStore(new Keyv());
    const guildId = newGuildId();
    await settings.setUser('member-1', { voiceId: 'am_2riuownnf' });
    const request = (
      await service(settings).chatVoice(
        guildId,
        { id: 'member-1', name: 'm' },
        'ありがとう、助かりました',
      )
    ).request;
    expect(request).toMatchObject({ voiceId: 'am_2riuownnf', language: 'ja' });
  });
});
