import Keyv from 'keyv';
import { expect, test } from 'vitest';
import { JournalRecorder, PendingJournal } from '../../src/durable/index.ts';
import type { SpeechTicket } from '../../src/speaking/index.ts';
import { FakeClock } from '../support/fake-clock.ts';

const ticket: SpeechTicket = {
  id: 't1',
  guildId: 'g1',
  requesterId: 'u1',
  requesterName: 'member',
  output: 'voice',
  request: { text: 'x'.repeat(40), voiceId: 'am_2riuownnf', model: 'base' },
  origin: { channelId: 'c1', reply: { applicationId: 'app', token: 'tok', expiresAt: 900_000 } },
};

function setup() {
  const clock = new FakeClock(1000);
  const journal = new PendingJournal(new Keyv(), { secretKey: Buffer.alloc(32, 9), clock });
  const recorder = new JournalRecorder({ journal, clock, voiceChannelOf: () => 'v1' });
  return { clock, journal, recorder };
}

test('queued, then submitted: one entry that gains its generation id; settled forgets it', async () => {
  const { clock, journal, recorder } = setup();
  await recorder.queued(ticket);
  expect(await journal.list()).toEqual([
    {
      id: 't1',
      guildId: 'g1',
      channelId: 'c1',
      requesterId: 'u1',
      requesterName: 'member',
      output: 'voice',
      voiceChannelId: 'v1',
      request: ticket.request,
      reply: { applicationId: 'app', token: 'tok', expiresAt: 900_000 },
      recordedAt: 1000,
    },
  ]);
  await clock.advance(500);
  await recorder.submitted(ticket, 'base_1');
  expect(await journal.list()).toMatchObject([
    { id: 't1', generationId: 'base_1', submittedAt: 1500 },
  ]);
  await recorder.settled(ticket);
  expect(await journal.list()).toEqual([]);
});

test('a file request keeps no voice channel, and a chat message no reply', async () => {
  const { journal, recorder } = setup();
  await recorder.submitted({ ...ticket, output: 'file', origin: { channelId: 'c1' } }, 'base_2');
  const [entry] = await journal.list();
  expect(entry?.voiceChannelId).toBeUndefined();
  expect(entry?.reply).toBeUndefined();
});

test('frozen while stopping: ends reported by parts shutting down forget nothing', async () => {
  const { journal, recorder } = setup();
  await recorder.submitted(ticket, 'base_3');
  recorder.freeze();
  await recorder.settled(ticket);
  expect((await journal.list()).map((e) => e.id)).toEqual(['t1']);
});

test('a removal the store refused is retried with the next call', async () => {
  const keyv = new Keyv();
  const clock = new FakeClock();
  const journal = new PendingJournal(keyv, { secretKey: Buffer.alloc(32, 9), clock });
  const recorder = new JournalRecorder({
    journal,
    clock,
    voiceChannelOf: () => 'v1',
  });
  await recorder.submitted(ticket, 'base_4');
  const set = keyv.set.bind(keyv);
  keyv.set = (async () => {
    throw new Error('store down');
  }) as typeof keyv.set;
  await expect(recorder.settled(ticket)).rejects.toThrow('store down');
  keyv.set = set;
  await recorder.submitted({ ...ticket, id: 't2' }, 'base_5');
  expect((await journal.list()).map((e) => e.id)).toEqual(['t2']);
});
