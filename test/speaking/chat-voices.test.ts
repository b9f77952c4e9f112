/**
 * The chat reader's voices through the speaking service, on the emulator's voice lists:
 * `voices: auto` gives each chatter their own, kept across a restart; `/myvoice` always wins;
 * `default` is the server's voice; a server without a record starts with `auto`.
 */
import Keyv from 'keyv';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { PreviewCache } from '../../src/preview/index.ts';
import { SpeakingService } from '../../src/speaking/index.ts';
import { KeyvSettingsStore, KeyvUsageLedger, KeyvVoiceAssignments } from '../../src/store/index.ts';
import { systemClock } from '../../src/tts/index.ts';
import { type Emulator, startEmulator, USER_ONE } from '../../tools/emulator/index.ts';
import { clientsFor } from '../tts/emulated.ts';
import { newGuildId, quietLogger } from '../voice/support.ts';

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator({ synth: 'tone' });
});
afterAll(async () => {
  await emulator?.close();
});

/** A speaking service over `keyv` (settings and voice tables), as a new process would build it. */
function service(keyv: Keyv) {
  return new SpeakingService({
    settings: new KeyvSettingsStore(keyv),
    apiKeyOf: async () => USER_ONE.apiKey,
    tts: clientsFor(emulator).clients,
    voice: { channelOf: () => undefined, speak: () => ({ ok: false, reason: 'not_connected' }) },
    usage: new KeyvUsageLedger(new Keyv()),
    previews: new PreviewCache(new Keyv()),
    dailyLimit: undefined,
    clock: systemClock,
    logger: quietLogger,
    minTextLength: 30,
    voiceAssignments: new KeyvVoiceAssignments(keyv),
  });
}

const voiceOf = async (speaking: SpeakingService, guildId: string, id: string) =>
  (await speaking.chatVoice(guildId, { id, name: id })).request.voiceId;

describe('chat voices', () => {
  test('a new server reads with auto voices: chatters differ, each keeps theirs, also after a restart', async () => {
    const keyv = new Keyv();
    const guildId = newGuildId();
    const speaking = service(keyv);
    const chatters = ['twitch:1', 'twitch:2', 'member-3', 'twitch:4'];
    const first = [];
    for (const id of chatters) first.push(await voiceOf(speaking, guildId, id));
    expect(new Set(first).size).toBe(chatters.length);
    expect(await voiceOf(speaking, guildId, 'twitch:2')).toBe(first[1]);
    const restarted = service(keyv);
    for (const [i, id] of chatters.entries())
      expect(await voiceOf(restarted, guildId, id)).toBe(first[i]);
  });

  test('a forgotten server’s table is dropped from memory too: the next assignment never writes the old chatters back', async () => {
    const keyv = new Keyv();
    const guildId = newGuildId();
    const speaking = service(keyv);
    await voiceOf(speaking, guildId, 'twitch:old');
    const assignments = new KeyvVoiceAssignments(keyv);
    expect(await assignments.get(guildId, 'twitch:old')).toBeDefined();
    // What forgetting does: the stored voices go, then the service is told.
    await assignments.forget(guildId);
    await speaking.forgetServer(guildId);
    await voiceOf(speaking, guildId, 'twitch:new');
    expect(await assignments.get(guildId, 'twitch:old')).toBeUndefined();
    expect(await assignments.get(guildId, 'twitch:new')).toBeDefined();
  });

  test('/myvoice always wins; with voices: default the server’s voice is everyone’s', async () => {
    const keyv = new Keyv();
    const guildId = newGuildId();
    const settings = new KeyvSettingsStore(keyv);
    await settings.setUser('member-1', { voiceId: 'bf_jp71qvnzd' });
    const speaking = service(keyv);
    expect(await voiceOf(speaking, guildId, 'member-1')).toBe('bf_jp71qvnzd');
    await settings.updateGuild(guildId, (guild) => ({
      ...guild,
      defaults: { voiceId: 'bm_5tyh0q2xw' },
      reader: { ...guild.reader, voices: 'default' },
    }));
    expect(await voiceOf(speaking, guildId, 'twitch:9')).toBe('bm_5tyh0q2xw');
    expect(await voiceOf(speaking, guildId, 'twitch:10')).toBe('bm_5tyh0q2xw');
    expect(await voiceOf(speaking, guildId, 'member-1')).toBe('bf_jp71qvnzd');
  });

  test('a server stored before automatic voices keeps default; one without a record starts with auto', async () => {
    const keyv = new Keyv();
    const settings = new KeyvSettingsStore(keyv);
    await keyv.set('guild:old', { defaults: {}, reader: { channels: [] } });
    expect((await settings.guild('old')).reader.voices).toBe('default');
    expect((await settings.guild('brand-new')).reader.voices).toBe('auto');
    const saved = await settings.updateGuild('brand-new', (guild) => guild);
    expect(saved.reader.voices).toBe('auto');
  });
});
