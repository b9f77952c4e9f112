/**
 * Automatic voices under a real chat (issue 27): hundreds of chatters over a handful of voices,
 * on a fake clock, through a restart and a move to another shard over the same store; a
 * chatter's voice never changes once given.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Keyv from 'keyv';
import { describe, expect, test } from 'vitest';
import { AutoVoices } from '../../src/speaking/index.ts';
import { firstVoice } from '../../src/speaking/voice-assignment.ts';
import { ASSIGNMENT_KEPT_MS, KeyvVoiceAssignments } from '../../src/store/index.ts';
import { NodeSqliteStore } from '../../src/store/sqlite.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { quietLogger } from '../voice/support.ts';

const voicesOf = (count: number) =>
  Array.from({ length: count }, (_, i) => `v${String(i).padStart(2, '0')}`);

/** A deterministic chat: which of `chatters` speaks at each message (a few talk much more). */
function chatOrder(chatters: number, messages: number): number[] {
  let seed = 27;
  const next = () => {
    seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
    return seed / 2 ** 32;
  };
  return Array.from({ length: messages }, () => Math.floor(chatters * next() ** 2));
}

describe('AutoVoices', () => {
  test.each([4, 12])(
    '200 chatters over 10 minutes on %i voices, restarted and moved to another shard: no chatter’s voice ever changes',
    async (voiceCount) => {
      const keyv = new Keyv();
      const store = new KeyvVoiceAssignments(keyv);
      const clock = new FakeClock();
      const voices = voicesOf(voiceCount);
      const guildId = 'g-real-chat';
      const processes = [
        new AutoVoices(store, quietLogger, clock),
        new AutoVoices(store, quietLogger, clock), // after a restart
        new AutoVoices(new KeyvVoiceAssignments(keyv), quietLogger, clock), // another shard
      ];
      const order = chatOrder(200, 2_000);
      const given = new Map<string, string>();
      for (const [n, index] of order.entries()) {
        await clock.advance(300); // 2,000 messages over 10 minutes
        const speaking = processes[Math.floor((n * processes.length) / order.length)];
        if (speaking === undefined) throw new Error('no process');
        const chatter = `twitch:${index}`;
        const voice = await speaking.voiceFor(guildId, chatter, voices);
        expect(voice).toBeDefined();
        if (voice === undefined) return;
        expect(given.get(chatter) ?? voice, `${chatter} at message ${n}`).toBe(voice);
        given.set(chatter, voice);
      }
      expect(given.size).toBeGreaterThan(150);
      // Every voice of the pool is in use: new chatters were spread over them.
      expect(new Set(given.values()).size).toBe(voiceCount);
    },
  );

  test('new chatters in a row get different voices while the pool lasts (best effort at first assignment)', async () => {
    const autos = new AutoVoices(new KeyvVoiceAssignments(new Keyv()), quietLogger);
    const voices = voicesOf(6);
    const given = [];
    for (let i = 0; i < 6; i++) given.push(await autos.voiceFor('g', `c${i}`, voices));
    expect(new Set(given).size).toBe(6);
  });

  test('a voice that leaves the pool is replaced once, and the new one is kept', async () => {
    const store = new KeyvVoiceAssignments(new Keyv());
    const autos = new AutoVoices(store, quietLogger);
    const voices = voicesOf(4);
    const first = await autos.voiceFor('g', 'ann', voices);
    const fewer = voices.filter((voice) => voice !== first);
    const second = await autos.voiceFor('g', 'ann', fewer);
    expect(second).not.toBe(first);
    expect(await autos.voiceFor('g', 'ann', voices)).toBe(second);
    expect(await new AutoVoices(store, quietLogger).voiceFor('g', 'ann', voices)).toBe(second);
  });

  test('a store that cannot be read: a voice is given, and the stored one is not overwritten', async () => {
    const store = new KeyvVoiceAssignments(new Keyv());
    const voices = voicesOf(4);
    await store.set('g', 'ann', { voiceId: 'v03', at: 0 });
    let failing = true;
    const flaky = {
      get: (guildId: string, chatter: string) =>
        failing ? Promise.reject(new Error('down')) : store.get(guildId, chatter),
      set: store.set.bind(store),
    };
    const autos = new AutoVoices(flaky, quietLogger);
    expect(await autos.voiceFor('g', 'ann', voices)).toBeDefined();
    expect((await store.get('g', 'ann'))?.voiceId).toBe('v03');
    failing = false;
    expect(await autos.voiceFor('g', 'ann', voices)).toBe('v03');
  });

  test('a voice in use is written again once a day, so the store keeps it while the chatter is around', async () => {
    const keyv = new Keyv();
    const store = new KeyvVoiceAssignments(keyv);
    const clock = new FakeClock();
    const autos = new AutoVoices(store, quietLogger, clock);
    await autos.voiceFor('g', 'ann', voicesOf(4));
    const at = (await store.get('g', 'ann'))?.at;
    await clock.advance(3_600_000);
    await autos.voiceFor('g', 'ann', voicesOf(4));
    expect((await store.get('g', 'ann'))?.at).toBe(at);
    await clock.advance(86_400_000);
    await autos.voiceFor('g', 'ann', voicesOf(4));
    expect((await store.get('g', 'ann'))?.at).toBe(clock.now());
  });

  test('forgetting a server deletes every chatter’s voice and drops them from memory', async () => {
    const keyv = new Keyv();
    const store = new KeyvVoiceAssignments(keyv);
    const autos = new AutoVoices(store, quietLogger);
    for (let i = 0; i < 5; i++) await autos.voiceFor('g1', `c${i}`, voicesOf(4));
    await autos.voiceFor('g12', 'c0', voicesOf(4));
    expect(await store.forget('g1')).toBe(true);
    await autos.forget('g1');
    for (let i = 0; i < 5; i++) expect(await store.get('g1', `c${i}`)).toBeUndefined();
    expect(await store.get('g12', 'c0')).toBeDefined();
  });

  test.each(['memory', 'sqlite'] as const)(
    'two shards giving one new chatter a first voice at once (%s store): both give the stored one',
    async (kind) => {
      const dir = await mkdtemp(join(tmpdir(), 'auto-voices-'));
      // Two processes over one store: a memory Keyv shared, or two connections to one SQLite file.
      const shared = new Keyv();
      const keyvOf = () =>
        kind === 'memory' ? shared : new Keyv({ store: new NodeSqliteStore(join(dir, 'db')) });
      try {
        const voices = ['va', 'vb'];
        const chatter = 'twitch:42';
        const alone = firstVoice(chatter, voices, []);
        // Shard A just gave that voice to someone else, so it spreads the chatter to the other.
        const warm = ['w0', 'w1', 'w2', 'w3'].find((w) => firstVoice(w, voices, []) === alone);
        if (warm === undefined) throw new Error('no warm-up chatter');
        const a = new AutoVoices(new KeyvVoiceAssignments(keyvOf()), quietLogger);
        const b = new AutoVoices(new KeyvVoiceAssignments(keyvOf()), quietLogger);
        expect(await a.voiceFor('g', warm, voices)).toBe(alone);
        const [fromA, fromB] = await Promise.all([
          a.voiceFor('g', chatter, voices),
          b.voiceFor('g', chatter, voices),
        ]);
        expect(fromA).toBe(fromB);
        const stored = await new KeyvVoiceAssignments(keyvOf()).get('g', chatter);
        expect(stored?.voiceId).toBe(fromA);
        // Claimed with the record's life, as `set` gives it.
        const raw = await keyvOf().get(`voices:g:${chatter}`, { raw: true });
        expect(raw?.expires).toBeGreaterThan(Date.now() + ASSIGNMENT_KEPT_MS - 60_000);
        // Each shard keeps giving it (from memory too).
        expect(await a.voiceFor('g', chatter, voices)).toBe(fromA);
        expect(await b.voiceFor('g', chatter, voices)).toBe(fromA);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );
});
