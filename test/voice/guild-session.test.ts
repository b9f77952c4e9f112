/**
 * A guild's key changing while speech is queued: the real VoiceManager, the fake voice server,
 * and real TTS clients for two keys against the emulator. Items resolve the guild's key when
 * they generate, as the speaking service's sources do.
 */
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest';
import type { TtsClient } from '../../src/tts/index.ts';
import type { VoiceManager } from '../../src/voice/index.ts';
import { type Emulator, startEmulator, USER_ONE, USER_TWO } from '../../tools/emulator/index.ts';
import {
  type FakeVoiceServer,
  startFakeVoiceServer,
  trustFakeVoiceCertificate,
} from '../fake-discord/voice/index.ts';
import { clientsFor, sentence, TIME_SCALE } from '../tts/emulated.ts';
import {
  eventually,
  expectOneTerminal,
  newGuildId,
  newManager,
  speak,
  target,
  testProcesses,
} from './support.ts';

let server: FakeVoiceServer;
let emulator: Emulator;
let oldKey: TtsClient;
let newKey: TtsClient;
let generationMs = 60_000;
const managers: VoiceManager[] = [];

beforeAll(async () => {
  await trustFakeVoiceCertificate();
  server = await startFakeVoiceServer({ heartbeatIntervalMs: 500 });
  emulator = await startEmulator({
    synth: 'tone',
    timeScale: TIME_SCALE,
    generationMs: () => generationMs,
  });
  const { clients } = clientsFor(emulator);
  oldKey = clients.forKey(USER_ONE.apiKey);
  newKey = clients.forKey(USER_TWO.apiKey);
});
afterEach(async () => {
  for (const made of managers.splice(0)) await made.destroy();
  expect(testProcesses.pids()).toEqual([]);
});
afterAll(async () => {
  await server.close();
  await emulator.close();
});

/** Requests made with the old key's account since `since` (index into the request log). */
const oldKeyRequestsSince = (since: number) =>
  emulator.requests.slice(since).filter((entry) => entry.userId === USER_ONE.userId);

/** The guild's key as the speaking service resolves it: read when an item's turn to generate comes. */
let current: TtsClient;
const guildKey = {
  generate: (...args: Parameters<TtsClient['generate']>) => current.generate(...args),
  stream: (...args: Parameters<TtsClient['stream']>) => current.stream(...args),
} as TtsClient;

async function queueFour() {
  const guildId = newGuildId();
  const { manager } = newManager();
  managers.push(manager);
  await manager.join(target(server, guildId));
  generationMs = 60_000;
  current = oldKey;
  const items = Array.from({ length: 4 }, (_, i) =>
    speak(manager, guildId, guildKey, `user${i}`, sentence(30 + i)),
  );
  await eventually(
    'two generating',
    () => manager.queue(guildId).filter((entry) => entry.state === 'generating').length === 2,
  );
  return { guildId, manager, items };
}

test('a replaced key: items it was generating are cancelled with the reason, waiting ones use the new key', async () => {
  const { guildId, manager, items } = await queueFour();
  const [first, second, third, fourth] = items;
  generationMs = 50;
  const mark = emulator.requests.length;
  current = newKey;
  expect(manager.keyChanged(guildId, 'replaced')).toBe(2);
  expect(await first?.ended).toEqual({ state: 'cancelled', reason: 'key_changed' });
  expect(await second?.ended).toEqual({ state: 'cancelled', reason: 'key_changed' });
  expect(await third?.ended).toMatchObject({ state: 'played' });
  expect(await fourth?.ended).toMatchObject({ state: 'played' });
  for (const item of items) expectOneTerminal(item);
  // Everything after the change went with the new key: no submit, poll or voice call with the old one.
  expect(oldKeyRequestsSince(mark)).toEqual([]);
  const submits = emulator.requests
    .slice(mark)
    .filter((entry) => entry.endpoint === 'POST /v2/tts');
  expect(submits.map((entry) => entry.userId)).toEqual([USER_TWO.userId, USER_TWO.userId]);
});

test('a removed key: every pending item is cancelled with the reason, and the old key is used no more', async () => {
  const { guildId, manager, items } = await queueFour();
  const mark = emulator.requests.length;
  expect(manager.keyChanged(guildId, 'removed')).toBe(4);
  for (const item of items) {
    expect(await item.ended).toEqual({ state: 'cancelled', reason: 'key_removed' });
    expectOneTerminal(item);
  }
  expect(manager.queue(guildId)).toEqual([]);
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(oldKeyRequestsSince(mark)).toEqual([]);
});

test('a guild without a voice session has nothing to cancel', () => {
  const { manager } = newManager();
  managers.push(manager);
  expect(manager.keyChanged(newGuildId(), 'replaced')).toBe(0);
});
