/**
 * Issue 27: a server's chat reader while its generation is stalled (a slow API, a budget wait,
 * an outage up to the poll deadline) and the chat goes on at 50 messages a second. The reader
 * runs in this process on a hand-moved clock: `prefill` messages are posted first, then the CPU
 * of the next `measured` ones is read from `process.cpuUsage`. Uses only what the reader had
 * before the fix, so the same file measures the code before and after.
 */
import pino from 'pino';
import { GuildReader } from '../src/reader/guild-reader.ts';
import type { ChatVoice } from '../src/reader/index.ts';
import { oursRow, type Row } from './stats.ts';

/** How the stalled chat is played. */
export interface StalledPlan {
  /** Messages posted before measuring: as many wait when nothing trims them. */
  readonly prefills: readonly number[];
  /** Messages whose CPU is measured. */
  readonly measured: number;
}

/** The chat's pace: 50 messages a second. */
const MESSAGE_GAP_MS = 20;

/** A voice whose generation never completes. */
const stalledVoice: ChatVoice = {
  key: 'k|v|base|1',
  request: { voiceId: 'v', model: 'base' },
  speeds: true,
  usage: async () => [],
  generate: () => new Promise<string>(() => undefined),
  open: () => Promise.reject(new Error('nothing plays')),
};

/** CPU per message (µs) after `prefill` messages, and what waits then. */
async function measure(prefill: number, measured: number) {
  let now = 1_700_000_000_000;
  let queued = 0;
  const reader = new GuildReader({
    guildId: 'g1',
    speaking: {
      channelOf: () => 'voice',
      voiceOf: async () => stalledVoice,
      queue: (turn) => {
        queued += 1;
        if (queued === 1) void turn.source.generate(new AbortController().signal);
        return { ok: true, itemId: `i${queued}` };
      },
      skip: () => true,
      join: async () => undefined,
    },
    // No hold and no budget: no turn ever sleeps, so the clock only needs to tell the time.
    clock: { now: () => now, sleep: () => new Promise<void>(() => undefined) },
    logger: pino({ level: 'silent' }),
    minTextLength: 0,
    holdMs: 0,
    batchChars: 600,
    retryMs: 2000,
    busyChat: true,
    onCleared: () => undefined,
  });
  const post = (i: number) => {
    now += MESSAGE_GAP_MS;
    reader.add(
      {
        id: `m${i}`,
        authorId: `c${i % 200}`,
        authorName: `chatter${i % 200}`,
        text: `message number ${i} in a busy chat`,
        kind: 'said',
        at: now,
        voiceKey: stalledVoice.key,
        voice: stalledVoice,
      },
      'channel',
    );
  };
  for (let i = 0; i < prefill; i++) {
    post(i);
    if (i % 100 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  await new Promise((resolve) => setImmediate(resolve));
  const waitingBefore = reader.waiting;
  const cpu = process.cpuUsage();
  for (let i = prefill; i < prefill + measured; i++) post(i);
  const used = process.cpuUsage(cpu);
  const usPerMessage = (used.user + used.system) / measured;
  return { usPerMessage, waitingBefore, waiting: reader.waiting, dropped: reader.droppedStale };
}

/** The stalled-reader section: CPU per message with that many messages posted while stalled. */
export async function stalledReaderBench(plan: StalledPlan): Promise<Row[]> {
  const rows: Row[] = [];
  for (const prefill of plan.prefills) {
    const { usPerMessage, waitingBefore, waiting, dropped } = await measure(prefill, plan.measured);
    const share = (usPerMessage * 50) / 10_000;
    rows.push(
      oursRow(
        'Stalled reader',
        `CPU per message after ${prefill.toLocaleString('en')} posted while generation stalls (50/s)`,
        `${usPerMessage.toFixed(1)} µs (${share.toFixed(2)} % of a core); ${waitingBefore} → ${waiting} waiting, ${dropped} dropped`,
      ),
    );
  }
  return rows;
}
