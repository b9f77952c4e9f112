/**
 * The journal's index under concurrent writers: two shard processes sharing one Redis (each with
 * its own connections, as in production) record at once and lose nothing; the old `pending:index`
 * is adopted; the embedded index serialises its changes; a shard lists only its own guilds.
 */
import Keyv from 'keyv';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import {
  KeyvJournalIndex,
  LEGACY_INDEX,
  PendingJournal,
  type PendingSpeech,
  RedisJournalIndex,
} from '../../src/durable/index.ts';
import {
  openKeyv,
  openRedis,
  type RedisConnection,
  StoreUnavailableError,
} from '../../src/store/index.ts';
import { systemClock } from '../../src/tts/index.ts';
import { startRedis, type TestRedis } from '../support/redis.ts';

/** The Redis set of pending ids. */
const SET = 'tts-bot:pending:ids';

/** The secret key and clock every journal here seals with. */
const sealing = { secretKey: Buffer.alloc(32, 9), clock: systemClock };

function pending(id: string, guildId = 'g', recordedAt = 0): PendingSpeech {
  return {
    id,
    guildId,
    channelId: 'c',
    requesterId: 'u',
    requesterName: 'member',
    output: 'file',
    request: { text: 'x'.repeat(40), voiceId: 'am_2riuownnf', model: 'base' },
    generationId: `base_${id}`,
    submittedAt: recordedAt,
    recordedAt,
  };
}

/** `count` records from each writer, all started at once and interleaved. */
async function recordTogether(writers: PendingJournal[], count: number): Promise<string[]> {
  const ids = writers.flatMap((_, w) => Array.from({ length: count }, (_, i) => `w${w}-${i}`));
  await Promise.all(
    Array.from({ length: count }, (_, i) =>
      writers.map((writer, w) => writer.record(pending(`w${w}-${i}`, `guild${w}`, i))),
    ).flat(),
  );
  return ids;
}

describe('on Redis, shared by two processes', () => {
  let redis: TestRedis;
  /** One shard process's store and Redis connections. */
  interface Process {
    keyv: Keyv;
    redis: RedisConnection;
    journal: PendingJournal;
  }
  const processes: Process[] = [];
  const open = async (): Promise<Process> => {
    const keyv = await openKeyv(redis.url);
    const connection = await openRedis(redis.url, () => undefined);
    const index = new RedisJournalIndex(connection, keyv);
    const process = {
      keyv,
      redis: connection,
      journal: new PendingJournal(keyv, { ...sealing, index }),
    };
    processes.push(process);
    return process;
  };

  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    for (const { keyv, redis: connection } of processes) {
      await keyv.disconnect();
      await connection.close();
    }
    await redis?.stop();
  });
  beforeEach(async () => {
    const { keyv, redis: connection } = await open();
    await keyv.clear();
    const ids = (await connection.sMembers(SET)) as string[];
    if (ids.length > 0) await connection.sRem(SET, ids);
  });

  test('two writers recording at once lose no entry', async () => {
    const [one, two, reader] = await Promise.all([open(), open(), open()]);
    const ids = await recordTogether([one.journal, two.journal], 20);
    expect((await reader.journal.list()).map((e) => e.id).sort()).toEqual(ids.sort());
  });

  test('removals from one process keep the other’s records', async () => {
    const [one, two, reader] = await Promise.all([open(), open(), open()]);
    await recordTogether([one.journal], 10);
    await Promise.all([
      ...Array.from({ length: 10 }, (_, i) => one.journal.remove(`w0-${i}`)),
      ...Array.from({ length: 10 }, (_, i) => two.journal.record(pending(`new${i}`, 'h', i))),
    ]);
    expect((await reader.journal.list()).map((e) => e.id).sort()).toEqual(
      Array.from({ length: 10 }, (_, i) => `new${i}`).sort(),
    );
  });

  test('entries an earlier version indexed in `pending:index` are adopted and resumable', async () => {
    const [old, next] = await Promise.all([open(), open()]);
    // As the earlier version wrote them: entries and one keyv array of their ids.
    const legacy = new PendingJournal(old.keyv, sealing);
    await legacy.record(pending('a', 'g', 1));
    await legacy.record(pending('b', 'g', 2));
    expect(await old.keyv.get(LEGACY_INDEX)).toEqual(['a', 'b']);

    expect((await next.journal.list()).map((e) => e.id)).toEqual(['a', 'b']);
    expect(await next.keyv.get(LEGACY_INDEX)).toBeUndefined();
    expect(((await next.redis.sMembers(SET)) as string[]).sort()).toEqual(['a', 'b']);
    await next.journal.remove('a');
    expect((await next.journal.list()).map((e) => e.id)).toEqual(['b']);
  });

  test('a shard lists only the guilds it owns; the others stay journalled for their shard', async () => {
    const [one, two] = await Promise.all([open(), open()]);
    await recordTogether([one.journal, two.journal], 3);
    const mine = await one.journal.list((guildId) => guildId === 'guild0');
    expect(mine.map((e) => e.id)).toEqual(['w0-0', 'w0-1', 'w0-2']);
    expect((await two.journal.list()).length).toBe(6);
  });

  test('Redis gone: the index fails with StoreUnavailableError, and works again once it is back', async () => {
    const { journal } = await open();
    await journal.record(pending('kept'));
    await redis.stop('SIGKILL');
    try {
      await expect(journal.list()).rejects.toBeInstanceOf(StoreUnavailableError);
    } finally {
      redis = await startRedis(redis.port);
    }
    await expect
      .poll(
        () =>
          journal.record(pending('later')).then(
            () => true,
            () => false,
          ),
        { timeout: 20_000 },
      )
      .toBe(true);
    expect((await journal.list()).map((e) => e.id)).toEqual(['later']);
  });
});

describe('embedded (one process owns the store)', () => {
  test('two journals over one index recording at once lose no entry', async () => {
    const keyv = new Keyv();
    const index = new KeyvJournalIndex(keyv);
    const writers = [
      new PendingJournal(keyv, { ...sealing, index }),
      new PendingJournal(keyv, { ...sealing, index }),
    ];
    const ids = await recordTogether(writers, 20);
    expect((await writers[0]?.list())?.map((e) => e.id).sort()).toEqual(ids.sort());
    expect(((await keyv.get(LEGACY_INDEX)) as string[]).sort()).toEqual(ids.sort());
  });

  test('dropping unreadable ids while listing keeps a record made at the same moment', async () => {
    const keyv = new Keyv();
    const journal = new PendingJournal(keyv, sealing);
    await journal.record(pending('gone'));
    await keyv.delete('pending:gone');
    await Promise.all([journal.list(), journal.record(pending('new'))]);
    expect((await journal.list()).map((e) => e.id)).toEqual(['new']);
  });
});
