import Keyv from 'keyv';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { translatorFor } from '../../src/i18n/index.ts';
import { UserError } from '../../src/refusal/index.ts';
import {
  type ConfigServices,
  configSummary,
  describeSummary,
  mergeDefaults,
  removeApiKey,
  saveApiKey,
  saveDefaults,
} from '../../src/settings/index.ts';
import { ApiKeyVault, KeyvSettingsStore } from '../../src/store/index.ts';
import { maskKey, type TtsClients } from '../../src/tts/index.ts';
import { type Emulator, startEmulator, USER_ONE, USER_TWO } from '../../tools/emulator/index.ts';
import { clientsFor } from '../tts/emulated.ts';

const GUILD = '100';
const silent = pino({ level: 'silent' });

describe('mergeDefaults', () => {
  test.each([
    [{}, {}, {}],
    [{}, { voiceId: 'v1' }, { voiceId: 'v1' }],
    [
      { voiceId: 'v1', speed: 1.5 },
      { model: 'advance' },
      { voiceId: 'v1', model: 'advance', speed: 1.5 },
    ],
    [
      { voiceId: 'v1', model: 'advance' },
      { voiceId: 'v2', speed: 0.5 },
      { voiceId: 'v2', model: 'advance', speed: 0.5 },
    ],
    [{ speed: 2 }, { voiceId: undefined, model: undefined, speed: undefined }, { speed: 2 }],
  ] as const)('%o with %o is %o', (current, input, expected) => {
    expect(mergeDefaults(current, input)).toEqual(expected);
  });

  test('a speed out of bounds is refused', () => {
    expect(() => mergeDefaults({}, { speed: 7 })).toThrow();
  });
});

describe('describeSummary', () => {
  const summary = { maskedKey: 'adx…abcd', defaults: {} };
  const usage = (count: number, windowMs: number, used: number) => ({
    limit: { count, windowMs },
    used,
    resetAt: 0,
  });

  test.each([
    [
      'v2: generations per window',
      { generations: [usage(20, 60_000, 3), usage(500, 86_400_000, 3)], requests: [] },
      ['**Generations:** 3 of 20 per 1 minute', '**Generations:** 3 of 500 per 1 day'],
    ],
    [
      'v3: the requests of every kind per window',
      { generations: [], requests: [usage(120, 60_000, 7)] },
      ['**API requests:** 7 of 120 per 1 minute'],
    ],
  ])('%s', (_, budget, lines) => {
    const text = describeSummary(translatorFor('en-US'), { ...summary, ...budget });
    expect(text.split('\n').slice(2)).toEqual(lines);
  });
});

describe('server configuration over a real store and the emulator', () => {
  let emulator: Emulator;
  let services: ConfigServices;
  let keyChanges: string[];
  let tts: TtsClients;

  beforeAll(async () => {
    emulator = await startEmulator({ synth: 'tone', generationMs: () => 50 });
  });
  afterAll(async () => {
    await emulator?.close();
  });
  beforeEach(() => {
    const settings = new KeyvSettingsStore(new Keyv());
    keyChanges = [];
    tts = clientsFor(emulator).clients;
    services = {
      settings,
      apiKeys: new ApiKeyVault(settings, Buffer.alloc(32, 7)),
      tts,
      // The voice service's side of a key change is its own test's concern; here, that it is told.
      voice: { keyChanged: (guildId, change) => keyChanges.push(`${guildId} ${change}`) },
    };
  });

  test('a valid key is saved and queued speech told; an invalid one leaves nothing', async () => {
    expect(await saveApiKey(services, GUILD, 'adx_wrong_key_000000', silent)).toBe('rejected');
    expect(await services.apiKeys.get(GUILD)).toBeUndefined();
    expect(tts.size).toBe(0);
    expect(keyChanges).toEqual([]);

    expect(await saveApiKey(services, GUILD, USER_ONE.apiKey, silent)).toBe('saved');
    expect(await services.apiKeys.get(GUILD)).toBe(USER_ONE.apiKey);
    expect(keyChanges).toEqual([`${GUILD} replaced`]);
    // The same key again changes nothing for queued speech.
    expect(await saveApiKey(services, GUILD, USER_ONE.apiKey, silent)).toBe('saved');
    expect(keyChanges).toEqual([`${GUILD} replaced`]);
    expect(await saveApiKey(services, GUILD, USER_TWO.apiKey, silent)).toBe('saved');
    expect(keyChanges).toEqual([`${GUILD} replaced`, `${GUILD} replaced`]);
    // The replaced key's client is gone; the new one's is held.
    expect(tts.size).toBe(1);
  });

  test('removing the key forgets its client and stops queued speech, once', async () => {
    expect(await removeApiKey(services, GUILD)).toBe(false);
    await saveApiKey(services, GUILD, USER_ONE.apiKey, silent);
    expect(await removeApiKey(services, GUILD)).toBe(true);
    expect(await services.apiKeys.get(GUILD)).toBeUndefined();
    expect(tts.size).toBe(0);
    expect(keyChanges).toEqual([`${GUILD} replaced`, `${GUILD} removed`]);
    expect(await removeApiKey(services, GUILD)).toBe(false);
  });

  test('defaults: a voice is checked against the chosen model, else the server’s', async () => {
    await saveApiKey(services, GUILD, USER_ONE.apiKey, silent);
    const client = async () => services.tts.forKey(USER_ONE.apiKey);
    expect(await saveDefaults(services, GUILD, { model: 'advance', speed: 1.25 }, client)).toEqual({
      model: 'advance',
      speed: 1.25,
    });
    // A base-only voice against the server's model (advance) is refused, and nothing changes.
    const refused = saveDefaults(services, GUILD, { voiceId: 'af_k2p8s1oqe' }, client);
    await expect(refused).rejects.toBeInstanceOf(UserError);
    await expect(refused).rejects.toMatchObject({ id: 'voice_not_found' });
    expect((await services.settings.guild(GUILD)).defaults).toEqual({
      model: 'advance',
      speed: 1.25,
    });
    // Named with its model it is accepted; the other defaults stay.
    expect(
      await saveDefaults(services, GUILD, { voiceId: 'af_k2p8s1oqe', model: 'base' }, client),
    ).toEqual({ voiceId: 'af_k2p8s1oqe', model: 'base', speed: 1.25 });
    // The key is kept alongside.
    expect(await services.apiKeys.get(GUILD)).toBe(USER_ONE.apiKey);
  });

  test('defaults without a voice need no key', async () => {
    const noKey = () => Promise.reject(new Error('no key should be needed'));
    expect(await saveDefaults(services, GUILD, { speed: 0.75 }, noKey)).toEqual({ speed: 0.75 });
  });

  test('the summary masks the key and carries its generation budget', async () => {
    expect(await configSummary(services, GUILD)).toEqual({
      maskedKey: undefined,
      defaults: {},
      generations: [],
      requests: [],
    });
    await saveApiKey(services, GUILD, USER_ONE.apiKey, silent);
    const summary = await configSummary(services, GUILD);
    expect(summary.maskedKey).toBe(maskKey(USER_ONE.apiKey));
    expect(JSON.stringify(summary)).not.toContain(USER_ONE.apiKey);
    expect(summary.generations.length).toBeGreaterThan(0);
    expect(summary.generations.every((usage) => usage.used === 0)).toBe(true);
    expect(summary.requests).toEqual([]); // v2 has no request allowance
  });
});
