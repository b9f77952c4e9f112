import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import Keyv from 'keyv';
import { expect, test } from 'vitest';
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
