/**
 * A server's chat reader while its generation is stalled (a slow API, a budget wait, an outage):
 * what waits stays bounded by what could still be heard within max-age, the rest counted as
 * dropped, and each message costs the same work however many wait. Work is counted (lookups of
 * held messages), never timed.
 */
import pino from 'pino';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { ChatBacklog } from '../../src/reader/backlog.ts';
import { GuildReader } from '../../src/reader/guild-reader.ts';
import { FORECAST_SHARE } from '../../src/reader/pacing.ts';
import type { ChatTurn, ChatVoice } from '../../src/reader/types.ts';
import { DEFAULT_MAX_AGE_MS } from '../../src/store/index.ts';
import { FakeClock, settle } from '../support/fake-clock.ts';

const original = ChatBacklog.prototype.has;

/** Per message, at most this many lookups of held messages (a constant, whatever waits). */
const LOOKUPS_PER_MESSAGE = 10;

/** A voice whose generation never completes. */
const stalledVoice: ChatVoice = {
  key: 'k|v|base|1',
  request: { voiceId: 'v', model: 'base' },
  speeds: true,
  usage: async () => [],
  generate: () => new Promise<string>(() => undefined),
  open: () => Promise.reject(new Error('nothing plays')),
};

/**
 * Posts `count` messages at 50 a second into a reader whose first turn generates for ever;
 * how many backlog lookups that took (failing fast past a linear budget), and what waits.
 */
async function stalled(count: number) {
  const clock = new FakeClock();
  const queued: ChatTurn[] = [];
  const reader = new GuildReader({
    guildId: 'g1',
    speaking: {
      channelOf: () => 'voice',
      voiceOf: async () => stalledVoice,
      queue: (turn) => {
        queued.push(turn);
        if (queued.length === 1) void turn.source.generate(new AbortController().signal);
        return { ok: true, itemId: `i${queued.length}` };
      },
      skip: () => true,
      join: async () => undefined,
    },
    clock,
    logger: pino({ level: 'silent' }),
    minTextLength: 0,
    holdMs: 1000,
    batchChars: 600,
    retryMs: 2000,
    busyChat: true,
    onCleared: () => undefined,
  });
  let lookups = 0;
  const budget = LOOKUPS_PER_MESSAGE * count;
  vi.spyOn(ChatBacklog.prototype, 'has').mockImplementation(function (this: ChatBacklog, id) {
    lookups += 1;
    if (lookups > budget) throw new Error(`over ${budget} backlog lookups for ${count} messages`);
    return original.call(this, id);
  });
  for (let i = 0; i < count; i++) {
    reader.add(
      {
        id: `m${i}`,
        authorId: `c${i % 200}`,
        authorName: `chatter${i % 200}`,
        text: `message number ${i} in a busy chat`,
        kind: 'said',
        at: clock.now(),
        voiceKey: stalledVoice.key,
        voice: stalledVoice,
      },
      'channel',
    );
    if (i % 50 === 49) await clock.advance(1000);
  }
  await settle();
  return { lookups, reader, queued };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('a reader whose generation is stalled', () => {
  test('5,000 messages cost work linear in their number: the same per message as 1,000', async () => {
    const small = await stalled(1000);
    vi.restoreAllMocks();
    const large = await stalled(5000);
    expect(large.lookups).toBeLessThanOrEqual(LOOKUPS_PER_MESSAGE * 5000);
    // Linear: five times the messages, about five times the work (quadratic would be ~25).
    expect(large.lookups / Math.max(1, small.lookups)).toBeLessThan(7);
  });

  test('what waits is capped at what could still be heard within max-age; the rest counts as dropped', async () => {
    const { reader, queued } = await stalled(5000);
    expect(queued.length).toBeGreaterThan(0);
    // At most twice what max-age's forecast window holds at the API's top speed (2) at 15
    // characters a second: 2 × 45 s × 30 characters a second = 2,700 characters.
    const capChars = 2 * DEFAULT_MAX_AGE_MS * FORECAST_SHARE * (30 / 1000);
    const perMessage = 'message number 4999 in a busy chat'.length;
    expect(reader.waiting).toBeLessThanOrEqual(Math.ceil(capChars / perMessage));
    expect(reader.waiting).toBeGreaterThan(0);
    // Every message is waiting, held by the stalled turn, or counted as dropped.
    let held = 0;
    for (let i = 0; i < 5000; i++) if (reader.holds(`m${i}`)) held += 1;
    expect(held + reader.droppedStale).toBe(5000);
  });
});
