import { describe, expect, test } from 'vitest';
import {
  deletionDue,
  nextSweepIn,
  type RemovalAction,
  type RemovalFacts,
  removalAction,
} from '../../src/privacy/index.ts';

const DAY = 86_400_000;
const HOUR = 3_600_000;
const removal = { guildId: '1', removedAt: 1_000 * DAY };

describe('removalAction', () => {
  const at = (days: number) => removal.removedAt + days * DAY;
  test.each<[string, RemovalFacts, RemovalAction]>([
    [
      'retention 0 deletes at once',
      { now: at(0), retentionMs: 0, owned: true, present: false },
      'forget',
    ],
    [
      'before the retention is over',
      { now: at(6.9), retentionMs: 7 * DAY, owned: true, present: false },
      'wait',
    ],
    [
      'the moment it is over',
      { now: at(7), retentionMs: 7 * DAY, owned: true, present: false },
      'forget',
    ],
    [
      'long after (a restart later)',
      { now: at(30), retentionMs: 7 * DAY, owned: true, present: false },
      'forget',
    ],
    [
      'a lowered retention applies to earlier removals',
      { now: at(2), retentionMs: DAY, owned: true, present: false },
      'forget',
    ],
    [
      'added back (seen in READY after a restart)',
      { now: at(30), retentionMs: 7 * DAY, owned: true, present: true },
      'cancel',
    ],
    [
      'added back before it was due',
      { now: at(1), retentionMs: 7 * DAY, owned: true, present: true },
      'cancel',
    ],
    [
      'another shard serves it, even when due',
      { now: at(30), retentionMs: 7 * DAY, owned: false, present: false },
      'skip',
    ],
    [
      'another shard serves it: presence unknown here',
      { now: at(1), retentionMs: 0, owned: false, present: true },
      'skip',
    ],
  ])('%s', (_, facts, expected) => {
    expect(removalAction(removal, facts)).toBe(expected);
  });
});

test.each([
  [0, removal.removedAt],
  [7 * DAY, removal.removedAt + 7 * DAY],
])('deletionDue with retention %d', (retentionMs, due) => {
  expect(deletionDue(removal, retentionMs)).toBe(due);
});

describe('nextSweepIn', () => {
  const now = 5_000;
  test.each<[string, number[], number]>([
    ['nothing pending: the hourly sweep', [], HOUR],
    ['a deletion due in ten minutes comes first', [now + 10 * 60_000], 10 * 60_000],
    ['the earliest of several', [now + 2 * HOUR, now + 30_000, now + 50 * 60_000], 30_000],
    ['one due in a week waits for the hourly sweep', [now + 7 * DAY], HOUR],
    ['one already due: at once, never negative', [now - 1_000], 0],
  ])('%s', (_, dues, expected) => {
    expect(nextSweepIn(dues, now, HOUR)).toBe(expected);
  });
});
