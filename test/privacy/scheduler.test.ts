/**
 * The removal scheduler over a real store and a fake clock: a removal is deleted after the
 * retention, a re-add cancels it, and a new process over the same store finishes it.
 */
import Keyv from 'keyv';
import pino from 'pino';
import { describe, expect, test } from 'vitest';
import {
  type ForgetReport,
  RemovalRecords,
  RemovalScheduler,
  type RemovalSchedulerOptions,
  SWEEP_EVERY_MS,
} from '../../src/privacy/index.ts';
import { FakeClock } from '../support/fake-clock.ts';

const DAY = 86_400_000;
const A = '100000000000000001';
const B = '100000000000000002';

const REPORT: ForgetReport = {
  apiKey: true,
  settings: true,
  readChannels: 0,
  twitchChannels: 0,
  twitchVoices: 0,
  twitchMuted: 0,
  memberSettings: 0,
  blockedWords: 0,
  dictionaryEntries: 0,
  pendingSpeech: 0,
  usageDays: 0,
  previews: 0,
  cachedSpeech: 0,
  keptKeyRecords: undefined,
};

/** A process: its scheduler, the servers it forgot, and the servers it is in. */
function instance(
  keyv: Keyv,
  clock: FakeClock,
  options: Partial<RemovalSchedulerOptions> & { failForget?: () => boolean } = {},
) {
  const forgotten: string[] = [];
  const present = new Set<string>();
  const scheduler = new RemovalScheduler({
    forget: {
      forgetGuild: async (guildId) => {
        if (options.failForget?.()) throw new Error('the store is away');
        forgotten.push(guildId);
        return REPORT;
      },
      flushDeletions: async () => undefined,
    },
    records: new RemovalRecords(keyv),
    clock,
    retentionMs: 7 * DAY,
    owns: () => true,
    present: (guildId) => present.has(guildId),
    logger: pino({ level: 'silent' }),
    ...options,
  });
  return { scheduler, forgotten, present, records: new RemovalRecords(keyv) };
}

describe('RemovalScheduler', () => {
  test('DATA_RETENTION=0: a removal is forgotten at once, and its record dropped', async () => {
    const keyv = new Keyv();
    const bot = instance(keyv, new FakeClock(), { retentionMs: 0 });
    await bot.scheduler.removed(A);
    expect(bot.forgotten).toEqual([A]);
    expect(await bot.records.list()).toEqual([]);
  });

  test('kept through the retention, forgotten once it is over; the other server is not', async () => {
    const keyv = new Keyv();
    const clock = new FakeClock();
    const bot = instance(keyv, clock);
    bot.present.add(B);
    bot.scheduler.start();
    await bot.scheduler.removed(A);
    expect(await bot.records.list()).toEqual([{ guildId: A, removedAt: clock.now() }]);
    await clock.advance(7 * DAY - 1);
    expect(bot.forgotten).toEqual([]);
    // The hourly sweep after the retention ends deletes it.
    await clock.advance(SWEEP_EVERY_MS);
    expect(bot.forgotten).toEqual([A]);
    expect(await bot.records.list()).toEqual([]);
    await bot.scheduler.stop();
  });

  test('a short retention is not left to the hourly sweep', async () => {
    const clock = new FakeClock();
    const bot = instance(new Keyv(), clock, { retentionMs: 60_000 });
    bot.scheduler.start();
    await clock.advance(1000);
    await bot.scheduler.removed(A);
    await clock.advance(60_000);
    expect(bot.forgotten).toEqual([A]);
    await bot.scheduler.stop();
  });

  test('added back before the retention is over: nothing is deleted, ever', async () => {
    const clock = new FakeClock();
    const bot = instance(new Keyv(), clock);
    bot.scheduler.start();
    await bot.scheduler.removed(A);
    await clock.advance(3 * DAY);
    bot.present.add(A);
    await bot.scheduler.readded(A);
    expect(await bot.records.list()).toEqual([]);
    await clock.advance(30 * DAY);
    expect(bot.forgotten).toEqual([]);
    await bot.scheduler.stop();
  });

  test('a restart: the next process over the same store forgets what the first scheduled', async () => {
    const keyv = new Keyv();
    const clock = new FakeClock();
    const first = instance(keyv, clock);
    first.scheduler.start();
    await first.scheduler.removed(A);
    await first.scheduler.stop();
    await clock.advance(8 * DAY);
    const second = instance(keyv, clock);
    second.scheduler.start();
    await clock.advance(0);
    expect(second.forgotten).toEqual([A]);
    await second.scheduler.stop();
  });

  test('added back while no process ran (no guildCreate, only READY): the start sweep cancels', async () => {
    const keyv = new Keyv();
    const clock = new FakeClock();
    await instance(keyv, clock).scheduler.removed(A);
    await clock.advance(8 * DAY);
    const next = instance(keyv, clock);
    next.present.add(A);
    await next.scheduler.sweep();
    expect(next.forgotten).toEqual([]);
    expect(await next.records.list()).toEqual([]);
  });

  test('removed while no process ran (no GUILD_DELETE, just absent from READY): scheduled at start, forgotten after the retention', async () => {
    const keyv = new Keyv();
    const clock = new FakeClock();
    const C = '100000000000000003';
    const D = '100000000000000004';
    const earlier = clock.now() - DAY;
    await new RemovalRecords(keyv).add(D, earlier);
    const bot = instance(keyv, clock, {
      stored: async () => [A, B, C, D],
      owns: (guildId) => guildId !== C,
    });
    bot.present.add(B);
    bot.scheduler.start();
    await clock.advance(0);
    // A: owned and absent, scheduled now; B: present; C: another shard's; D: its earlier removal kept.
    expect(await bot.records.list()).toEqual(
      expect.arrayContaining([
        { guildId: A, removedAt: clock.now() },
        { guildId: D, removedAt: earlier },
      ]),
    );
    expect(await bot.records.get(B)).toBeUndefined();
    expect(await bot.records.get(C)).toBeUndefined();
    await clock.advance(7 * DAY + SWEEP_EVERY_MS);
    expect(bot.forgotten.sort()).toEqual([A, D]);
    await bot.scheduler.stop();
  });

  test('the look for missed removals failing (store away) does not stop the sweeps', async () => {
    const keyv = new Keyv();
    const clock = new FakeClock();
    const bot = instance(keyv, clock, {
      stored: async () => {
        throw new Error('the store is away');
      },
      retentionMs: DAY,
    });
    bot.scheduler.start();
    await bot.scheduler.removed(A);
    await clock.advance(DAY + SWEEP_EVERY_MS);
    expect(bot.forgotten).toEqual([A]);
    await bot.scheduler.stop();
  });

  test('a server another shard serves is left to that shard, even when due', async () => {
    const keyv = new Keyv();
    const clock = new FakeClock();
    await instance(keyv, clock).scheduler.removed(A);
    await clock.advance(8 * DAY);
    const other = instance(keyv, clock, { owns: (guildId) => guildId !== A });
    await other.scheduler.sweep();
    expect(other.forgotten).toEqual([]);
    expect(await other.records.list()).toEqual([{ guildId: A, removedAt: clock.now() - 8 * DAY }]);
  });

  test('a deletion the store fails is kept pending and tried again a minute later', async () => {
    const clock = new FakeClock();
    let away = true;
    const bot = instance(new Keyv(), clock, { retentionMs: 1000, failForget: () => away });
    bot.scheduler.start();
    await bot.scheduler.removed(A);
    await clock.advance(1000);
    expect(bot.forgotten).toEqual([]);
    expect(await bot.records.list()).toHaveLength(1);
    away = false;
    await clock.advance(60_000);
    expect(bot.forgotten).toEqual([A]);
    expect(await bot.records.list()).toEqual([]);
    await bot.scheduler.stop();
  });

  test('a second removal event keeps the first removal time', async () => {
    const keyv = new Keyv();
    const clock = new FakeClock();
    const bot = instance(keyv, clock);
    await bot.scheduler.removed(A);
    const first = clock.now();
    await clock.advance(DAY);
    await bot.scheduler.removed(A);
    expect(await bot.records.list()).toEqual([{ guildId: A, removedAt: first }]);
  });
});
