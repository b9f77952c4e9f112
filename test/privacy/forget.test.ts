/**
 * Forgetting a server in the real store, on SQLite and on Redis: every record of server A is
 * gone, and every record of server B is exactly as it was.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Keyv from 'keyv';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { PendingJournal, type PendingSpeech, RedisJournalIndex } from '../../src/durable/index.ts';
import { PreviewCache } from '../../src/preview/index.ts';
import { ForgetService } from '../../src/privacy/index.ts';
import {
  ApiKeyVault,
  KeyvChatVoices,
  KeyvMemberSettings,
  KeyvSettingsStore,
  KeyvSpeechCacheStore,
  KeyvUsageLedger,
  keysUnder,
  openKeyv,
  openRedis,
  type RedisConnection,
} from '../../src/store/index.ts';
import { keyId, speechCacheKey, systemClock } from '../../src/tts/index.ts';
import { startRedis, type TestRedis } from '../support/redis.ts';

const SECRET = Buffer.alloc(32, 7);
const DAY = 86_400_000;
const NOW = Date.UTC(2026, 4, 10, 12);
const A = '100000000000000001';
const B = '100000000000000002';
const KEY_A = 'adx_server_a_key_0000000001';
const KEY_B = 'adx_server_b_key_0000000002';

/** One process's view of a store, built as the bot builds it. */
interface World {
  readonly keyv: Keyv;
  readonly settings: KeyvSettingsStore;
  readonly apiKeys: ApiKeyVault;
  readonly journal: PendingJournal;
  readonly usage: KeyvUsageLedger;
  readonly previews: PreviewCache;
  readonly speech: KeyvSpeechCacheStore;
  /** Every key of the store with its value, for comparing before and after. */
  snapshot(): Promise<Map<string, unknown>>;
  close(): Promise<void>;
}

function build(keyv: Keyv, index?: RedisJournalIndex): Omit<World, 'close'> {
  const settings = new KeyvSettingsStore(keyv);
  return {
    keyv,
    settings,
    apiKeys: new ApiKeyVault(settings, SECRET),
    journal: new PendingJournal(keyv, { secretKey: SECRET, clock: systemClock, index }),
    usage: new KeyvUsageLedger(keyv),
    previews: new PreviewCache(keyv),
    speech: new KeyvSpeechCacheStore(keyv),
    async snapshot() {
      const all = new Map<string, unknown>();
      for (const key of (await keysUnder(keyv, '')).sort()) all.set(key, await keyv.get(key));
      return all;
    },
  };
}

function entry(id: string, guildId: string): PendingSpeech {
  return {
    id,
    guildId,
    channelId: '200000000000000001',
    requesterId: '300000000000000001',
    requesterName: 'member',
    output: 'file',
    request: {
      text: `pending speech of ${id}`.padEnd(40, '.'),
      voiceId: 'am_2riuownnf',
      model: 'base',
    },
    generationId: `base_${id}`,
    submittedAt: Date.now(),
    recordedAt: Date.now(),
  };
}

/** Gives a server a key, settings, pending speech, usage, samples and cached speech. */
async function populate(world: Omit<World, 'close'>, guildId: string, apiKey: string) {
  await world.apiKeys.set(guildId, apiKey);
  await world.settings.updateGuild(guildId, (settings) => ({
    ...settings,
    defaults: { voiceId: 'am_2riuownnf', speed: 1.2 },
    reader: {
      ...settings.reader,
      channels: ['400000000000000001', '400000000000000002'],
      twitchChannels: ['streamerone'],
    },
    blockedWords: ['badword'],
    twitch: {
      ...settings.twitch,
      // One chatter's voice where an earlier version kept it (the server's record).
      voices: { '41': 'am_2riuownnf' },
      muted: ['some_troll'],
    },
    dictionary: [
      { word: 'gg', replacement: 'good game' },
      { word: 'brb', replacement: 'be right back' },
      { word: 'afk', replacement: 'away' },
    ],
  }));
  const chosen = new KeyvChatVoices(world.keyv);
  for (const userId of ['42', '43'])
    await chosen.set(guildId, userId, { voiceId: 'af_3kbq21leo', at: NOW });
  // Two members' own settings there, and a member's voice (the same in every server, kept).
  const members = new KeyvMemberSettings(world.keyv);
  await members.update(guildId, '300000000000000001', () => ({ read: false }));
  await members.update(guildId, '300000000000000002', () => ({ name: 'Rob', nameBy: 'admin' }));
  await world.settings.setUser('300000000000000001', { voiceId: 'am_2riuownnf' });
  await world.journal.record(entry(`${guildId}-1`, guildId));
  await world.journal.record(entry(`${guildId}-2`, guildId));
  for (const daysAgo of [0, 1, 5])
    await world.usage.record(guildId, '300000000000000001', NOW - daysAgo * DAY);
  const id = keyId(apiKey);
  for (const voiceId of ['am_2riuownnf', 'af_3kbq21leo']) {
    await world.previews.get({ keyId: id, model: 'base', voiceId }, async () => ({
      generationId: `base_preview_${voiceId}`,
      bytes: Buffer.from('RIFF....WAVE'),
      mime: 'audio/wav',
      extension: 'wav',
    }));
  }
  const request = {
    text: `cached speech of ${guildId}`.padEnd(40, '.'),
    voiceId: 'am_2riuownnf',
    model: 'base' as const,
  };
  await world.speech.set(
    speechCacheKey(id, request),
    {
      generationId: 'base_cached',
      audioUrl: 'https://media.example/a.wav',
      expiresAt: Date.now() + DAY,
    },
    DAY,
  );
}

function forgetter(world: Omit<World, 'close'>, told: { tts: string[]; voice: string[] }) {
  return new ForgetService({
    ...world,
    speechCache: world.speech,
    tts: { forget: (apiKey) => void told.tts.push(keyId(apiKey)) },
    voice: {
      keyChanged: (guildId, change) => {
        told.voice.push(`${guildId}:${change}`);
        return 0;
      },
    },
    logger: pino({ level: 'silent' }),
  });
}

/** Keys of the snapshot that belong to server A (by guild id or its key's id). */
function ofServer(keys: Iterable<string>, guildId: string, apiKey: string): string[] {
  const id = keyId(apiKey);
  return [...keys].filter(
    (key) =>
      key === `guild:${guildId}` ||
      key.startsWith(`chat-voice:${guildId}:`) ||
      key.startsWith(`member:${guildId}:`) ||
      key.startsWith(`usage:${guildId}:`) ||
      key.startsWith(`pending:${guildId}-`) ||
      key.startsWith(`preview:${id}:`) ||
      key.startsWith(`speech:${id}:`),
  );
}

function suite(name: string, open: () => Promise<World>) {
  describe(`forgetting a server on ${name}`, () => {
    test('every record of server A is deleted and counted; server B is untouched', async () => {
      const world = await open();
      try {
        await populate(world, A, KEY_A);
        await populate(world, B, KEY_B);
        const before = await world.snapshot();
        const ofA = ofServer(before.keys(), A, KEY_A);
        // guild, 2 chosen voices, 2 members, 3 usage days, 2 pending, 2 samples, 1 cached speech
        expect(ofA).toHaveLength(13);
        const told = { tts: [] as string[], voice: [] as string[] };
        const report = await forgetter(world, told).forgetGuild(A);
        expect(report).toEqual({
          apiKey: true,
          settings: true,
          readChannels: 2,
          twitchChannels: 1,
          twitchVoices: 3,
          twitchMuted: 1,
          memberSettings: 2,
          dictionaryEntries: 3,
          blockedWords: 1,
          pendingSpeech: 2,
          usageDays: 3,
          previews: 2,
          cachedSpeech: 1,
          keptKeyRecords: undefined,
        });
        const after = await world.snapshot();
        for (const key of ofA) expect(after.has(key), key).toBe(false);
        for (const [key, value] of before) {
          if (ofA.includes(key) || key === 'pending:index') continue;
          expect(after.get(key), key).toEqual(value);
        }
        expect((await world.journal.list()).map((e) => e.id).sort()).toEqual([`${B}-1`, `${B}-2`]);
        expect(await world.apiKeys.get(A)).toBeUndefined();
        expect(await world.apiKeys.get(B)).toBe(KEY_B);
        expect((await world.usage.days(A, NOW - 5 * DAY, NOW)).map((d) => d.total)).toEqual([
          0, 0, 0, 0, 0, 0,
        ]);
        expect(told).toEqual({ tts: [keyId(KEY_A)], voice: [`${A}:removed`] });
        // Again: nothing left, nothing fails.
        expect(await forgetter(world, told).forgetGuild(A)).toMatchObject({
          apiKey: false,
          settings: false,
          pendingSpeech: 0,
          usageDays: 0,
          previews: 0,
          cachedSpeech: 0,
        });
        expect(await world.snapshot()).toEqual(after);
      } finally {
        await world.close();
      }
    });

    test('a key another server also stores keeps its samples and cached speech', async () => {
      const world = await open();
      try {
        await populate(world, A, KEY_A);
        await populate(world, B, KEY_A);
        const told = { tts: [] as string[], voice: [] as string[] };
        const report = await forgetter(world, told).forgetGuild(A);
        expect(report).toMatchObject({
          apiKey: true,
          previews: 0,
          cachedSpeech: 0,
          keptKeyRecords: 'shared',
        });
        const after = await world.snapshot();
        const id = keyId(KEY_A);
        expect([...after.keys()].filter((key) => key.startsWith(`preview:${id}:`))).toHaveLength(2);
        expect([...after.keys()].filter((key) => key.startsWith(`speech:${id}:`))).toHaveLength(2);
        expect(after.has(`guild:${A}`)).toBe(false);
        // B's client of the shared key is not dropped.
        expect(told.tts).toEqual([]);
      } finally {
        await world.close();
      }
    });

    test('a key sealed with another SECRET_KEY: the server is still forgotten, the key records kept', async () => {
      const world = await open();
      try {
        await populate(world, A, KEY_A);
        const other = build(world.keyv);
        const stranger = new ApiKeyVault(other.settings, Buffer.alloc(32, 8));
        const told = { tts: [] as string[], voice: [] as string[] };
        const service = new ForgetService({
          ...other,
          apiKeys: stranger,
          journal: world.journal,
          speechCache: other.speech,
          tts: { forget: (apiKey) => void told.tts.push(keyId(apiKey)) },
          voice: {
            keyChanged: (guildId, change) => {
              told.voice.push(`${guildId}:${change}`);
              return 0;
            },
          },
          logger: pino({ level: 'silent' }),
        });
        expect(await service.forgetGuild(A)).toMatchObject({
          apiKey: true,
          settings: true,
          keptKeyRecords: 'unreadable',
        });
        expect((await world.snapshot()).has(`guild:${A}`)).toBe(false);
        // No key to drop a client of; queued speech still stops.
        expect(told).toEqual({ tts: [], voice: [`${A}:removed`] });
      } finally {
        await world.close();
      }
    });
  });
}

suite('SQLite', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'forget-'));
  const keyv = await openKeyv(`sqlite://${join(dir, 'bot.sqlite')}`);
  return {
    ...build(keyv),
    async close() {
      await keyv.disconnect();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});

suite('Redis', async () => {
  // A namespace per test: the tests share one redis-server.
  const namespace = `forget-${randomUUID()}`;
  const keyv = await openKeyv(redis.url, namespace);
  const connection: RedisConnection = await openRedis(redis.url, () => undefined);
  const index = new RedisJournalIndex(connection, keyv, `${namespace}:pending:ids`);
  return {
    ...build(keyv, index),
    async close() {
      await keyv.disconnect();
      await connection.close();
    },
  };
});
