/** The usage ledger as requests share generations and fall back: each request pays at most once, and always for what it made itself. */
import Keyv from 'keyv';
import { describe, expect, test } from 'vitest';
import { Spending } from '../../src/speaking/spending.ts';
import { KeyvUsageLedger } from '../../src/store/index.ts';
import { systemClock } from '../../src/tts/index.ts';
import { quietLogger } from '../voice/support.ts';

const GUILD = '100000000000000001';

function spending() {
  const usage = new KeyvUsageLedger(new Keyv());
  const spend = new Spending({ usage, clock: systemClock, logger: quietLogger });
  const today = async (member: string) => {
    const now = Date.now();
    const [day] = await usage.days(GUILD, now, now);
    return day?.members[member] ?? 0;
  };
  return { spend, today };
}

describe('Spending.record', () => {
  test('a request whose stream failed and was submitted again pays once', async () => {
    const { spend, today } = spending();
    await spend.record(GUILD, 'amy', 'gen_1', 'ticket_a');
    await spend.record(GUILD, 'amy', 'gen_2', 'ticket_a');
    expect(await today('amy')).toBe(1);
  });

  test('a request that joined another’s generation pays nothing, and pays for the one it then makes itself', async () => {
    const { spend, today } = spending();
    await spend.record(GUILD, 'amy', 'gen_1', 'ticket_a');
    // Ben joined Amy's generation: nothing more to pay.
    await spend.record(GUILD, 'ben', 'gen_1', 'ticket_b');
    expect(await today('ben')).toBe(0);
    // Amy's item was skipped and the shared one dropped: Ben's own generation is his.
    await spend.record(GUILD, 'ben', 'gen_2', 'ticket_b');
    expect(await today('ben')).toBe(1);
    expect(await today('amy')).toBe(1);
  });
});
