/**
 * Servers' settings kept in memory (issue 27): a busy Twitch chat read them for every message
 * and every server listing the channel. Read from the store once per `cacheMs`, dropped at once
 * by every write of this store, seen from another process's write after `cacheMs`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import Keyv from 'keyv';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import {
  ApiKeyVault,
  encryptSecret,
  KeyvSettingsStore,
  openKeyv,
  SETTINGS_CACHE_MS,
  type SettingsStore,
} from '../../src/store/index.ts';

/** A memory store that counts reads of servers' settings. */
class CountingMap extends Map<string, unknown> {
  reads = 0;
  override get(key: string): unknown {
    if (key.includes('guild:')) this.reads++;
    return super.get(key);
  }
}

function world() {
  const map = new CountingMap();
  const keyv = new Keyv({ store: map });
  let now = 1_700_000_000_000;
  const clock = {
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
  };
  const settings = new KeyvSettingsStore(keyv, { cacheMs: SETTINGS_CACHE_MS, now: clock.now });
  return { map, keyv, clock, settings };
}

const withChannels = (store: KeyvSettingsStore, guildId: string, twitchChannels: string[]) =>
  store.updateGuild(guildId, (guild) => ({
    ...guild,
    reader: { ...guild.reader, twitchChannels },
  }));

describe('KeyvSettingsStore in memory', () => {
  test('1,000 messages × 20 servers within the time: one store read per server, not 20,000', async () => {
    const w = world();
    for (let i = 0; i < 20; i++) await withChannels(w.settings, `g${i}`, ['streamer']);
    w.map.reads = 0;
    for (let message = 0; message < 1_000; message++)
      for (let i = 0; i < 20; i++) await w.settings.guild(`g${i}`);
    expect(w.map.reads).toBe(20);
  });

  test('a write of this store is seen at once; a copy changed by a caller changes nothing stored', async () => {
    const w = world();
    await withChannels(w.settings, 'g', ['one']);
    const read = await w.settings.guild('g');
    expect(read.reader.twitchChannels).toEqual(['one']);
    read.reader.twitchChannels.push('mutated');
    expect((await w.settings.guild('g')).reader.twitchChannels).toEqual(['one']);
    await withChannels(w.settings, 'g', ['two']);
    expect((await w.settings.guild('g')).reader.twitchChannels).toEqual(['two']);
    await w.settings.deleteGuild('g');
    expect((await w.settings.guild('g')).reader.twitchChannels).toEqual([]);
  });

  test('a write by another process (a tool, another shard) is seen once the time is over', async () => {
    const w = world();
    await withChannels(w.settings, 'g', ['one']);
    await w.settings.guild('g');
    await withChannels(new KeyvSettingsStore(w.keyv), 'g', ['elsewhere']);
    w.clock.advance(SETTINGS_CACHE_MS - 1);
    expect((await w.settings.guild('g')).reader.twitchChannels).toEqual(['one']);
    w.clock.advance(1);
    expect((await w.settings.guild('g')).reader.twitchChannels).toEqual(['elsewhere']);
  });

  test('updateGuild changes what is stored, never an old copy', async () => {
    const w = world();
    await withChannels(w.settings, 'g', ['one']);
    await w.settings.guild('g');
    await withChannels(new KeyvSettingsStore(w.keyv), 'g', ['elsewhere']);
    const changed = await w.settings.updateGuild('g', (guild) => ({
      ...guild,
      reader: { ...guild.reader, twitchChannels: [...guild.reader.twitchChannels, 'more'] },
    }));
    expect(changed.reader.twitchChannels).toEqual(['elsewhere', 'more']);
  });
});

describe('secrets:rotate beside a running bot (compare-and-set across processes)', () => {
  const OLD = Buffer.alloc(32, 0x42);
  const CURRENT = Buffer.alloc(32, 0x63);
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tts-settings-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('a key the bot sets between the rotation’s read and its write stands (it was overwritten with the resealed old one)', async () => {
    const path = join(dir, 'bot.sqlite');
    const bot = await openKeyv(`sqlite://${path}`);
    const tool = await openKeyv(`sqlite://${path}`);
    try {
      const botSettings = new KeyvSettingsStore(bot);
      await botSettings.setGuild('g', { sealedApiKey: encryptSecret('old-key', OLD, 'g') });
      // The bot's /config api-key, made while the tool is between its read and its write: the
      // new record is ready beside, and copied in by a second connection at that moment.
      await botSettings.setGuild('g-next', {
        sealedApiKey: encryptSecret('new-key', CURRENT, 'g'),
      });
      const db = new DatabaseSync(path);
      const keys = db.prepare('SELECT key FROM keyv').all() as { key: string }[];
      const full = (id: string) => keys.find((row) => row.key.endsWith(`guild:${id}`))?.key ?? '';
      const toolSettings = new KeyvSettingsStore(tool);
      let raced = false;
      const racing: SettingsStore = {
        guild: (id) => toolSettings.guild(id),
        setGuild: (id, settings) => toolSettings.setGuild(id, settings),
        deleteGuild: (id) => toolSettings.deleteGuild(id),
        user: (id) => toolSettings.user(id),
        setUser: (id, settings) => toolSettings.setUser(id, settings),
        deleteUser: (id) => toolSettings.deleteUser(id),
        guildIds: () => toolSettings.guildIds(),
        updateGuild: (id, change) =>
          toolSettings.updateGuild(id, (settings) => {
            if (!raced) {
              raced = true;
              db.prepare(
                'UPDATE keyv SET value = (SELECT value FROM keyv WHERE key = ?) WHERE key = ?',
              ).run(full('g-next'), full('g'));
            }
            return change(settings);
          }),
      };
      const vault = new ApiKeyVault(racing, { current: CURRENT, previous: [OLD] });
      expect(await vault.reseal('g')).toBe('resealed');
      expect(raced).toBe(true);
      db.close();
      expect(await new ApiKeyVault(new KeyvSettingsStore(bot), CURRENT).get('g')).toBe('new-key');
    } finally {
      await tool.disconnect();
      await bot.disconnect();
    }
  });
});
