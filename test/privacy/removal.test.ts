/**
 * A server removing the bot, end to end: the real bot on the fake Discord (GUILD_DELETE as
 * Discord sends it), the emulator, the SQLite store in its data folder.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startBot } from '../../src/bot.ts';
import { keysUnder } from '../../src/store/index.ts';
import { systemClock } from '../../src/tts/index.ts';
import { USER_ONE, USER_TWO } from '../../tools/emulator/index.ts';
import type { GuildIds } from '../fake-discord/index.ts';
import { startTestBot, type TestBot } from '../support/bot-harness.ts';
import { populateServer, recordsOf, storeSnapshot } from '../support/server-data.ts';

const DAY = 86_400_000;
/** A bot start and its first sweep can take more than vitest's one second on a loaded machine. */
const POLL = { timeout: 10_000 };
const twoServers = { guilds: [{ name: 'Server A' }, { name: 'Server B' }] };

/** The two servers of the fake Discord. */
function servers(t: TestBot): [GuildIds, GuildIds] {
  const [a, b] = t.discord.guilds;
  if (a === undefined || b === undefined) throw new Error('two servers expected');
  return [a, b];
}

/** The store's pending removals, by guild id. */
async function pendingRemovals(t: TestBot): Promise<string[]> {
  return (await keysUnder(t.bot.store, 'forget:')).map((key) => key.slice(7));
}

/** How many times `text` appears in the raw bytes of the bot's SQLite file and its WAL. */
async function fileMentions(t: TestBot, text: string): Promise<number> {
  let count = 0;
  for (const file of ['bot.sqlite', 'bot.sqlite-wal']) {
    const bytes = await readFile(join(t.dataDir, file)).catch((error: unknown) => {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return Buffer.alloc(0);
      throw error;
    });
    for (let at = bytes.indexOf(text); at !== -1; at = bytes.indexOf(text, at + 1)) count++;
  }
  return count;
}

describe('DATA_RETENTION=0', () => {
  let t: TestBot;
  let a: GuildIds;
  let b: GuildIds;
  beforeAll(async () => {
    t = await startTestBot({
      env: { DATA_RETENTION: '0', TTS_CACHE_TTL: '1h' },
      discord: twoServers,
    });
    [a, b] = servers(t);
    await populateServer(t, a, USER_ONE.apiKey);
    await populateServer(t, b, USER_TWO.apiKey);
  }, 60_000);
  afterAll(async () => {
    await t?.stop();
  });

  test('an outage (GUILD_DELETE with unavailable) deletes nothing and schedules nothing', async () => {
    const before = await storeSnapshot(t.bot.store);
    t.discord.leaveGuild(b.id, { outage: true });
    await expect.poll(() => t.bot.client.guilds.cache.get(b.id)?.available, POLL).toBe(false);
    t.discord.rejoinGuild(b.id);
    await expect.poll(() => t.bot.client.guilds.cache.get(b.id)?.available, POLL).toBe(true);
    expect(await pendingRemovals(t)).toEqual([]);
    expect(await storeSnapshot(t.bot.store)).toEqual(before);
  });

  test('a removal deletes every record of that server at once; the other server keeps all of its', async () => {
    const before = await storeSnapshot(t.bot.store);
    const ofA = recordsOf(before, a.id, USER_ONE.apiKey);
    // Settings (key, read channel, dictionary), a member's own settings, a usage day, a voice
    // sample, and the cached speech of both the /say and the sample.
    expect(ofA.map((key) => key.split(':')[0]).sort()).toEqual([
      'guild',
      'member',
      'preview',
      'speech',
      'speech',
      'usage',
    ]);
    expect(recordsOf(before, b.id, USER_TWO.apiKey)).toHaveLength(6);
    t.discord.leaveGuild(a.id);
    await expect
      .poll(async () => recordsOf(await storeSnapshot(t.bot.store), a.id, USER_ONE.apiKey))
      .toEqual([]);
    expect(await pendingRemovals(t)).toEqual([]);
    const after = await storeSnapshot(t.bot.store);
    for (const [key, value] of before) {
      if (!ofA.includes(key)) expect(after.get(key), key).toEqual(value);
    }
    expect(await t.bot.services.apiKeys.get(b.id)).toBe(USER_TWO.apiKey);
    // Gone from the files too, not only from the table: the deletions sat in the WAL before.
    expect(await fileMentions(t, a.id)).toBe(0);
    expect(await fileMentions(t, b.id)).toBeGreaterThan(0);
    const logs = t.logs.join('\n');
    expect(logs).toContain('forgot a server');
    expect(logs).not.toContain(USER_ONE.apiKey);
  });
});

describe('DATA_RETENTION=7d (the default)', () => {
  let t: TestBot;
  let a: GuildIds;
  let b: GuildIds;
  beforeAll(async () => {
    t = await startTestBot({ env: { TTS_CACHE_TTL: '1h' }, discord: twoServers });
    [a, b] = servers(t);
    await populateServer(t, a, USER_ONE.apiKey);
    await populateServer(t, b, USER_TWO.apiKey);
  }, 60_000);
  afterAll(async () => {
    await t?.stop();
  });

  test('removed, then added back before the retention is over: everything is kept', async () => {
    const before = await storeSnapshot(t.bot.store);
    t.discord.leaveGuild(a.id);
    await expect.poll(() => pendingRemovals(t), POLL).toEqual([a.id]);
    expect(await storeSnapshot(t.bot.store)).toEqual(
      new Map([...before, [`forget:${a.id}`, expect.anything()]]),
    );
    t.discord.rejoinGuild(a.id);
    await expect.poll(() => pendingRemovals(t), POLL).toEqual([]);
    expect(await storeSnapshot(t.bot.store)).toEqual(before);
    expect(await t.bot.services.apiKeys.get(a.id)).toBe(USER_ONE.apiKey);
  });

  test('a pending deletion survives a restart and runs once the retention is over', async () => {
    const before = await storeSnapshot(t.bot.store);
    t.discord.leaveGuild(a.id);
    await expect.poll(() => pendingRemovals(t), POLL).toEqual([a.id]);
    const { config, logger } = t.bot.services;
    await t.bot.stop();
    // The next start, eight days later.
    const later = { now: () => Date.now() + 8 * DAY, sleep: systemClock.sleep };
    const again = await startBot(config, { logger, clock: later });
    try {
      await expect
        .poll(async () => recordsOf(await storeSnapshot(again.store), a.id, USER_ONE.apiKey))
        .toEqual([]);
      await expect.poll(() => keysUnder(again.store, 'forget:'), POLL).toEqual([]);
      const after = await storeSnapshot(again.store);
      const ofA = recordsOf(before, a.id, USER_ONE.apiKey);
      expect(ofA).toHaveLength(6);
      for (const [key, value] of before) {
        // A key's learned generation times are kept on purpose (docs/guide/admins.md, "Privacy") and the
        // bot itself writes them again when it stops: not a record of the server's.
        if (key.startsWith('poll-times:')) continue;
        if (!ofA.includes(key)) expect(after.get(key), key).toEqual(value);
      }
      expect(await again.services.apiKeys.get(b.id)).toBe(USER_TWO.apiKey);
    } finally {
      await again.stop();
    }
  });
});

describe('removed while no process ran', () => {
  let t: TestBot;
  afterAll(async () => {
    await t?.stop();
  });

  test('a server missing from READY is scheduled at the next start, and forgotten after the retention', async () => {
    t = await startTestBot({ env: { TTS_CACHE_TTL: '1h' }, discord: twoServers });
    const [a, b] = servers(t);
    await populateServer(t, a, USER_ONE.apiKey);
    await populateServer(t, b, USER_TWO.apiKey);
    const { config, logger } = t.bot.services;
    await t.bot.stop();
    // Removed during the downtime: Discord never sends this process a GUILD_DELETE for it.
    t.discord.leaveGuild(a.id);
    const again = await startBot(config, { logger });
    try {
      await expect.poll(() => keysUnder(again.store, 'forget:'), POLL).toEqual([`forget:${a.id}`]);
    } finally {
      await again.stop();
    }
    // Eight days later, the next start deletes it; the server still there keeps everything.
    const later = { now: () => Date.now() + 8 * DAY, sleep: systemClock.sleep };
    const last = await startBot(config, { logger, clock: later });
    try {
      await expect
        .poll(async () => recordsOf(await storeSnapshot(last.store), a.id, USER_ONE.apiKey))
        .toEqual([]);
      expect(await last.services.apiKeys.get(b.id)).toBe(USER_TWO.apiKey);
    } finally {
      await last.stop();
    }
  });
});
