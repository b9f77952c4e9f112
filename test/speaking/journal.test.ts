import pino from 'pino';
import { describe, expect, test } from 'vitest';
import type { SpeechEnd, SpeechJournal, SpeechTicket } from '../../src/speaking/index.ts';
import { TicketJournal } from '../../src/speaking/journal.ts';

const ticket: SpeechTicket = {
  id: 't1',
  guildId: 'g',
  requesterId: 'u',
  requesterName: 'U',
  output: 'voice',
  request: { text: 'x'.repeat(30), voiceId: 'v', model: 'base' },
  origin: {},
};

function recorder(fail = false) {
  const calls: string[] = [];
  const warnings: string[] = [];
  const journal: SpeechJournal = {
    queued: () => {
      calls.push('queued');
      if (fail) throw new Error('store down');
    },
    submitted: async (_ticket, id) => {
      calls.push(`submitted ${id}`);
      if (fail) throw new Error('store down');
    },
    settled: (_ticket, end: SpeechEnd) => {
      calls.push(`settled ${end.state}`);
      if (fail) throw new Error('store down');
    },
  };
  const logger = pino(
    { level: 'warn' },
    { write: (line: string) => void warnings.push(JSON.parse(line).msg) },
  );
  return { calls, warnings, journal, logger };
}

describe('TicketJournal', () => {
  test('settled follows submitted, once', async () => {
    const { calls, journal, logger } = recorder();
    const tj = new TicketJournal(journal, ticket, logger);
    await tj.submitted('gen-1');
    tj.settled({ state: 'delivered' });
    tj.settled({ state: 'failed', error: new Error('late') });
    expect(calls).toEqual(['submitted gen-1', 'settled delivered']);
  });

  test('a request that never reached the API is not journalled at all', () => {
    const { calls, journal, logger } = recorder();
    new TicketJournal(journal, ticket, logger).settled({ state: 'cancelled' });
    expect(calls).toEqual([]);
  });

  test('a failing journal is logged and never breaks speech', async () => {
    const { calls, warnings, journal, logger } = recorder(true);
    const tj = new TicketJournal(journal, ticket, logger);
    await expect(tj.submitted('gen-2')).resolves.toBeUndefined();
    tj.settled({ state: 'skipped' });
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toEqual(['submitted gen-2', 'settled skipped']);
    expect(warnings).toEqual(['journal: submitted failed', 'journal: settled failed']);
  });

  test('a queued voice item is settled even when it ends before reaching the API', async () => {
    const { calls, journal, logger } = recorder();
    const tj = new TicketJournal(journal, ticket, logger);
    tj.queued();
    tj.settled({ state: 'skipped' });
    expect(calls).toEqual(['queued', 'settled skipped']);
  });

  test('queued, then submitted, then settled once', async () => {
    const { calls, journal, logger } = recorder();
    const tj = new TicketJournal(journal, ticket, logger);
    tj.queued();
    await tj.submitted('gen-4');
    tj.settled({ state: 'delivered' });
    expect(calls).toEqual(['queued', 'submitted gen-4', 'settled delivered']);
  });

  test('a failing queued record is logged, not thrown', async () => {
    const { warnings, journal, logger } = recorder(true);
    new TicketJournal(journal, ticket, logger).queued();
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings).toEqual(['journal: queued failed']);
  });

  test('no journal: nothing to do', async () => {
    const tj = new TicketJournal(undefined, ticket, pino({ level: 'silent' }));
    await tj.submitted('gen-3');
    tj.settled({ state: 'delivered' });
  });
});
