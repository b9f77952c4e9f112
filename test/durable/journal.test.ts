import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import Keyv from 'keyv';
import pino from 'pino';
import { describe, expect, test } from 'vitest';
import { PendingJournal } from '../../src/durable/journal.ts';
import type { PendingSpeech } from '../../src/durable/pending.ts';
import { openKeyv } from '../../src/store/index.ts';
import { systemClock } from '../../src/tts/index.ts';

/** The secret key and clock every journal here seals with. */
const sealing = { secretKey: Buffer.alloc(32, 9), clock: systemClock };

function pending(id: string, recordedAt = 0): PendingSpeech {
  return {
    id,
    guildId: 'g',
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

test('records, replaces and removes entries; lists them oldest first', async () => {
  const journal = new PendingJournal(new Keyv(), sealing);
  await journal.record(pending('b', 2));
  await journal.record(pending('a', 1));
  await journal.record({ ...pending('b', 2), generationId: 'base_new' });
  expect((await journal.list()).map((e) => [e.id, e.generationId])).toEqual([
    ['a', 'base_a'],
    ['b', 'base_new'],
  ]);
  await journal.remove('a');
  await journal.remove('unknown');
  expect((await journal.list()).map((e) => e.id)).toEqual(['b']);
});

test('survives a restart: a journal on the same SQLite file lists what the first recorded', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'journal-'));
  const url = `sqlite://${join(dir, 'bot.sqlite')}`;
  try {
    const first = await openKeyv(url);
    await new PendingJournal(first, sealing).record(pending('x', 5));
    await first.disconnect();
    const second = await openKeyv(url);
    expect(await new PendingJournal(second, sealing).list()).toEqual([pending('x', 5)]);
    await second.disconnect();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('an entry that expired or cannot be read is dropped from the index', async () => {
  const keyv = new Keyv();
  const journal = new PendingJournal(keyv, sealing);
  await journal.record(pending('a'));
  await journal.record(pending('b'));
  await keyv.delete('pending:a');
  await keyv.set('pending:b', { nonsense: true });
  expect(await journal.list()).toEqual([]);
  expect(await keyv.get('pending:index')).toEqual([]);
});

test('concurrent records and removals never lose one another', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.tuple(fc.constantFrom('record', 'remove'), fc.integer({ min: 0, max: 5 })), {
        maxLength: 30,
      }),
      async (operations) => {
        const journal = new PendingJournal(new Keyv(), sealing);
        const expected = new Set<string>();
        await Promise.all(
          operations.map(([op, n]) => {
            const id = `id${n}`;
            if (op === 'record') expected.add(id);
            else expected.delete(id);
            return op === 'record' ? journal.record(pending(id)) : journal.remove(id);
          }),
        );
        expect(new Set((await journal.list()).map((e) => e.id))).toEqual(expected);
      },
    ),
    { numRuns: 50 },
  );
});

test('a store failure reaches the caller, and the next call works', async () => {
  const keyv = new Keyv();
  const journal = new PendingJournal(keyv, sealing);
  const set = keyv.set.bind(keyv);
  let fail = true;
  keyv.set = (async (...args: Parameters<typeof set>) => {
    if (fail) throw new Error('store down');
    return set(...args);
  }) as typeof keyv.set;
  await expect(journal.record(pending('a'))).rejects.toThrow('store down');
  fail = false;
  await journal.record(pending('b'));
  expect((await journal.list()).map((e) => e.id)).toEqual(['b']);
});

describe('interaction tokens at rest', () => {
  const TOKEN = 'aW50ZXJhY3Rpb246OTg3NjU0MzIxOnRvcC1zZWNyZXQ';
  const withReply = (id: string): PendingSpeech => ({
    ...pending(id, Date.now()),
    reply: { applicationId: 'app', token: TOKEN, expiresAt: Date.now() + 15 * 60_000 },
  });
  /** Everything the in-memory store holds, as one string. */
  const raw = (map: Map<unknown, unknown>) => JSON.stringify([...map]);

  test('the Map behind keyv never holds the token; the journal lists it back in clear', async () => {
    const map = new Map();
    const journal = new PendingJournal(new Keyv({ store: map }), sealing);
    const entry = withReply('a');
    await journal.record(entry);
    expect(raw(map)).toContain('sealedToken');
    expect(raw(map)).not.toContain(TOKEN);
    expect(await journal.list()).toEqual([entry]);
  });

  test('an entry an earlier version wrote (token in clear) is listed with it, and sealed in the store', async () => {
    const map = new Map();
    const keyv = new Keyv({ store: map });
    const entry = withReply('old');
    await keyv.set('pending:old', entry);
    await keyv.set('pending:index', ['old']);
    expect(raw(map)).toContain(TOKEN);
    const journal = new PendingJournal(keyv, sealing);
    expect(await journal.list()).toEqual([entry]);
    expect(raw(map)).not.toContain(TOKEN);
    expect(await journal.list()).toEqual([entry]);
  });

  test('another SECRET_KEY: the entry is listed without its reply (channel), nothing throws', async () => {
    const keyv = new Keyv();
    await new PendingJournal(keyv, sealing).record(withReply('a'));
    const warnings: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => warnings.push(line) });
    const other = new PendingJournal(keyv, { ...sealing, secretKey: Buffer.alloc(32, 1), logger });
    const [listed] = await other.list();
    expect(listed?.id).toBe('a');
    expect(listed?.reply).toBeUndefined();
    expect(warnings.join('')).toContain('cannot be opened');
    expect(warnings.join('')).not.toContain(TOKEN);
  });

  test('a sealed reply copied from one entry to another does not open there', async () => {
    const keyv = new Keyv();
    const journal = new PendingJournal(keyv, sealing);
    await journal.record(withReply('a'));
    await journal.record(pending('b', Date.now()));
    const a = (await keyv.get('pending:a')) as { reply: unknown };
    const b = (await keyv.get('pending:b')) as object;
    await keyv.set('pending:b', { ...b, reply: a.reply });
    const listed = await journal.list();
    expect(listed.find((e) => e.id === 'a')?.reply?.token).toBe(TOKEN);
    expect(listed.find((e) => e.id === 'b')?.reply).toBeUndefined();
  });

  test('a token past its use is not kept: recorded without its reply', async () => {
    const map = new Map();
    const journal = new PendingJournal(new Keyv({ store: map }), sealing);
    const late = withReply('late');
    await journal.record({
      ...late,
      reply: { applicationId: 'app', token: TOKEN, expiresAt: Date.now() - 1 },
    });
    expect(raw(map)).not.toContain('sealedToken');
    expect((await journal.list())[0]?.reply).toBeUndefined();
  });

  test('rewriting an old entry never replaces a newer record of it', async () => {
    const keyv = new Keyv();
    const entry = withReply('old');
    await keyv.set('pending:old', entry);
    await keyv.set('pending:index', ['old']);
    const journal = new PendingJournal(keyv, sealing);
    // The entry is recorded again (submitted) between the read and the rewrite.
    const get = keyv.get.bind(keyv);
    let reads = 0;
    keyv.get = (async (...args: Parameters<typeof get>) => {
      const value = await get(...args);
      if (String(args[0]) === 'pending:old' && reads++ === 0) {
        void journal.record({ ...entry, generationId: 'base_newer' });
      }
      return value;
    }) as typeof keyv.get;
    await journal.list();
    keyv.get = get;
    expect((await journal.list()).map((e) => e.generationId)).toEqual(['base_newer']);
  });
});
