/**
 * A chat voice's live variant on v3, through the speaking service and a real v3 client against
 * the emulator's stream: present only where the key's API streams; a turn streams (no submit),
 * is recorded in the usage ledger on submission (its author, or the chat when several), says its
 * PCM format, and is let go when its signal aborts before it is opened.
 */
import Keyv from 'keyv';
import { describe, expect, test } from 'vitest';
import { PreviewCache } from '../../src/preview/index.ts';
import { SpeakingService } from '../../src/speaking/index.ts';
import {
  CHAT_LEDGER_ID,
  KeyvSettingsStore,
  KeyvUsageLedger,
  KeyvVoiceAssignments,
} from '../../src/store/index.ts';
import { STREAM_PCM, systemClock, type TtsClients } from '../../src/tts/index.ts';
import { USER_ONE } from '../../tools/emulator/index.ts';
import { v3ClientsFor, withEmulator } from '../tts/v3-emulated.ts';
import { newGuildId, quietLogger } from '../voice/support.ts';

const emulator = withEmulator();

function service(tts: TtsClients, usage: KeyvUsageLedger) {
  return new SpeakingService({
    settings: new KeyvSettingsStore(new Keyv()),
    apiKeyOf: async () => USER_ONE.apiKey,
    tts,
    voice: { channelOf: () => undefined, speak: () => ({ ok: false, reason: 'not_connected' }) },
    usage,
    previews: new PreviewCache(new Keyv()),
    dailyLimit: undefined,
    clock: systemClock,
    logger: quietLogger,
    minTextLength: 30,
    voiceAssignments: new KeyvVoiceAssignments(new Keyv()),
  });
}

async function todayOf(usage: KeyvUsageLedger, guildId: string) {
  const now = Date.now();
  const [today] = await usage.days(guildId, now, now);
  return today?.members ?? {};
}

const TEXT = 'bobby said this chat turn is streamed live to voice.';

describe('a chat voice on v3', () => {
  test('streams a turn: a live address with its PCM format, no submit, the ledger under its author', async () => {
    const usage = new KeyvUsageLedger(new Keyv());
    const guildId = newGuildId();
    const speaking = service(v3ClientsFor(emulator()).clients, usage);
    const voice = await speaking.chatVoice(guildId, { id: 'bobby', name: 'bobby' });
    expect(voice.live?.rawFormatOf()).toEqual(STREAM_PCM);
    const signal = new AbortController().signal;
    const address = (await voice.live?.generate(TEXT, { authors: ['bobby'], signal })) ?? '';
    expect(address).toMatch(/^live:gen_/);
    expect(voice.live?.rawFormatOf(address)).toEqual(STREAM_PCM);
    const audio = await voice.open(address, signal);
    expect(audio.raw).toEqual(STREAM_PCM);
    let bytes = 0;
    for await (const chunk of audio.stream) bytes += (chunk as Buffer).length;
    expect(bytes).toBeGreaterThan(0);
    // Opened once: the address is a file's from now on as far as the voice knows.
    expect(voice.live?.rawFormatOf(address)).toBeUndefined();
    expect(emulator().counts()['POST /v3/tts']).toBeUndefined();
    expect(emulator().v3.generationsOf(USER_ONE.userId)).toMatchObject([{ via: 'stream' }]);
    expect(await todayOf(usage, guildId)).toEqual({ bobby: 1 });
  });

  test('several authors are recorded as the chat; aborting before it plays lets the stream go', async () => {
    const usage = new KeyvUsageLedger(new Keyv());
    const guildId = newGuildId();
    const speaking = service(v3ClientsFor(emulator()).clients, usage);
    const voice = await speaking.chatVoice(guildId, { id: 'bobby', name: 'bobby' });
    const turn = new AbortController();
    const address =
      (await voice.live?.generate(`${TEXT} carol said so is mine.`, {
        authors: ['bobby', 'carol'],
        signal: turn.signal,
      })) ?? '';
    expect(voice.live?.rawFormatOf(address)).toEqual(STREAM_PCM);
    turn.abort(new Error('a message of the batch changed'));
    expect(voice.live?.rawFormatOf(address)).toBeUndefined();
    expect(await todayOf(usage, guildId)).toEqual({ [CHAT_LEDGER_ID]: 1 });
  });

  test('no live variant where the key’s API does not stream', async () => {
    const usage = new KeyvUsageLedger(new Keyv());
    const clients = v3ClientsFor(emulator(), { streaming: false }).clients;
    const voice = await service(clients, usage).chatVoice(newGuildId(), { id: 'b', name: 'b' });
    expect(voice.live).toBeUndefined();
  });

  test("the reader paces turns by v3's request allowance (v3 has no generation limit)", async () => {
    const speaking = service(v3ClientsFor(emulator()).clients, new KeyvUsageLedger(new Keyv()));
    const voice = await speaking.chatVoice(newGuildId(), { id: 'bobby', name: 'bobby' });
    const usages = await voice.usage();
    // One window (a minute, time-scaled in these tests) of 120 requests.
    expect(usages.map((u) => u.limit.count)).toEqual([120]);
    // The voice list it just fetched is counted in it.
    expect(usages[0]?.used).toBeGreaterThan(0);
  });
});
