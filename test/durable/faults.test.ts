/**
 * The real bot against the emulator's fault injection: every fault ends with the member told in
 * words with the next step, no crash and no unhandled rejection, and the next /say after the
 * fault works without any help.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { RedisJournalIndex } from '../../src/durable/index.ts';
import { openRedis } from '../../src/store/index.ts';
import { type RequestLogEntry, USER_ONE } from '../../tools/emulator/index.ts';
import type { InteractionHandle } from '../fake-discord/index.ts';
import { api } from '../support/api-under-test.ts';
import { startTestBot, type TestBot } from '../support/bot-harness.ts';
import { startRedis, type TestRedis } from '../support/redis.ts';

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
beforeAll(() => {
  process.on('unhandledRejection', onUnhandled);
});
afterAll(() => {
  process.off('unhandledRejection', onUnhandled);
  expect(unhandled).toEqual([]);
});

let counter = 0;
/** A /say with text of its own (no two requests alike), as a file. */
function say(t: TestBot): InteractionHandle {
  counter++;
  return t.discord.slash({
    user: 'member',
    name: 'say',
    options: {
      text: `Fault test number ${counter}, a sentence long enough to speak.`,
      output: 'file',
    },
  });
}

/** The reply's final text (or its attachment), once it is not progress any more. */
async function outcome(
  handle: InteractionHandle,
  timeoutMs = 30_000,
): Promise<{ text: string; file: boolean }> {
  await handle.waitFor(
    (e) => (e.kind === 'edit' && !/⏳|🎙️|📥/.test(JSON.stringify(e.data))) || e.kind === 'followUp',
    timeoutMs,
  );
  const text = handle.lastMessage()?.content ?? handle.followUps()[0]?.content ?? '';
  return { text, file: handle.files().length > 0 };
}

/** The next /say after a fault works by itself. */
async function recovers(t: TestBot): Promise<void> {
  const after = await outcome(say(t));
  expect(after.file, after.text).toBe(true);
}

/** The bot's first retry wait in the API fault tests (the real one is 1 s). */
const RETRY_BASE_MS = 50;

/**
 * Asserts that each of `attempts` (one /say's submissions, oldest first) came after a wait that
 * doubles from the base: RETRY_BASE_MS after the first 429, twice that after the second…
 */
function expectBackoff(attempts: readonly RequestLogEntry[]): void {
  attempts.slice(1).forEach((entry, i) => {
    const previous = attempts[i];
    if (previous === undefined) throw new Error('no submission before a retry');
    // The wait starts once the 429 is answered; 1 ms for the clocks' rounding.
    expect(entry.at - previous.doneAt, `wait after 429 number ${i + 1}`).toBeGreaterThanOrEqual(
      RETRY_BASE_MS * 2 ** i - 1,
    );
  });
}

describe('API faults (SQLite store)', () => {
  let t: TestBot;
  beforeAll(async () => {
    // Rate windows a tenth of real (a minute lasts 6 s) on both sides, so the ~30 generations
    // here never wait for the vendor's allowance (v2: 20 generations a minute). Retries wait
    // RETRY_BASE_MS, 2x, 4x… instead of the real 1 s, 2 s, 4 s… (the doubling is checked below;
    // the real base in test/tts/http.test.ts).
    t = await startTestBot({
      ttsRetryBaseMs: RETRY_BASE_MS,
      emulator: { timeScale: 0.1 },
      env: {
        TTS_POLL_DEADLINE: '4s',
        TTS_LIMITS: api.tenthLimits,
      },
    });
    await t.configureKey(USER_ONE.apiKey);
  });
  afterAll(() => t?.stop());

  test.each<[string, () => void, RegExp]>([
    [
      'a burst of 5xx on POST /tts',
      () => t.emulator.fault({ kind: 'http-error', endpoint: api.submit, status: 503, times: 2 }),
      /internal error\. Please try again in a minute/,
    ],
    [
      'a dropped connection on POST /tts',
      () => t.emulator.fault({ kind: 'drop', endpoint: api.submit }),
      /could not be reached\. Please try again in a minute/,
    ],
    [
      'malformed JSON from POST /tts',
      () => t.emulator.fault({ kind: 'malformed', endpoint: api.submit }),
      /sent something unexpected.*Please try again/,
    ],
    [
      'a task that never completes (ends at TTS_POLL_DEADLINE)',
      () => t.emulator.fault({ kind: 'never-complete' }),
      new RegExp(
        `taking too long to generate \\(generation \`${api.idPrefix}[\\w-]+\`\\); giving up\\. Please try again later`,
      ),
    ],
    [
      'a Failed task',
      () => t.emulator.fault({ kind: 'fail', error: 'Voice model crashed' }),
      new RegExp(
        `could not generate this speech \\(generation \`${api.idPrefix}[\\w-]+\`\\): Voice model crashed`,
      ),
    ],
    [
      'the audio answering 404',
      () => t.emulator.fault({ kind: 'media-404' }),
      /could not find that.*Please try again/,
    ],
    [
      'a dropped audio download',
      () => t.emulator.fault({ kind: 'drop', endpoint: 'GET /audio' }),
      /could not be reached\. Please try again in a minute/,
    ],
  ])(
    '%s: the member is told what happened and what to do; the next /say works',
    async (_, arm, told) => {
      arm();
      const failed = await outcome(say(t));
      expect(failed.file).toBe(false);
      expect(failed.text).toMatch(told);
      t.emulator.clearFaults();
      await recovers(t);
    },
  );

  test.each<[string, () => void]>([
    [
      'a burst of 5xx on GET /status',
      () => t.emulator.fault({ kind: 'http-error', endpoint: api.status, status: 502, times: 2 }),
    ],
    [
      'dropped connections on GET /status',
      () => t.emulator.fault({ kind: 'drop', endpoint: api.status, times: 2 }),
    ],
    [
      'a slow POST /tts (2 s)',
      () => t.emulator.fault({ kind: 'delay', endpoint: api.submit, ms: 2000 }),
    ],
    [
      'a slow audio download (2 s)',
      () => t.emulator.fault({ kind: 'delay', endpoint: 'GET /audio', ms: 2000 }),
    ],
  ])('%s is ridden out: the member gets the audio', async (_, arm) => {
    arm();
    const result = await outcome(say(t));
    expect(result.file, result.text).toBe(true);
  });

  test('a short storm of 429s on POST /tts is ridden out: the member gets the audio, each retry waiting twice the one before', async () => {
    const from = api.submissions(t.emulator).length;
    t.emulator.fault({
      kind: 'http-error',
      endpoint: api.submit,
      status: 429,
      body: { detail: 'Too Many Requests' },
      times: 3,
    });
    const result = await outcome(say(t));
    expect(result.file, result.text).toBe(true);
    const attempts = api.submissions(t.emulator).slice(from);
    expect(attempts.map((entry) => entry.status)).toEqual([429, 429, 429, api.acceptedStatus]);
    expectBackoff(attempts);
  });

  test('a storm of 429s longer than the retries: told when to try again, then it works', async () => {
    t.emulator.fault({
      kind: 'http-error',
      endpoint: api.submit,
      status: 429,
      body: { detail: 'Too Many Requests' },
      times: 5,
    });
    const from = api.submissions(t.emulator).length;
    const failed = await outcome(say(t), 40_000);
    expect(failed.text).toMatch(/busy for this server right now; try again <t:\d+:R>/);
    // The first attempt and its 4 retries (maxRetries), each after twice the wait before.
    const attempts = api.submissions(t.emulator).slice(from);
    expect(attempts.map((entry) => entry.status)).toEqual(Array(5).fill(429));
    expectBackoff(attempts);
    await recovers(t);
  }, 90_000);
});

describe('the Redis store going away and coming back', () => {
  let t: TestBot;
  let redis: TestRedis;
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'redis-fault-'));
    redis = await startRedis(undefined, { dir });
    // Generations last long enough for Redis to die while one is in flight.
    t = await startTestBot({
      env: { STORE_URL: redis.url },
      emulator: { generationMs: () => 2000 },
    });
    await t.configureKey(USER_ONE.apiKey);
  });
  afterAll(async () => {
    await t?.stop();
    await redis?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  test('a /say while Redis is down is answered with the next step; after it is back, /say works by itself', async () => {
    await redis.stop('SIGKILL');
    const handle = say(t);
    const down = await outcome(handle);
    expect(handle.callback()?.type).toBe(5); // acknowledged before the store was asked
    expect(down.text).toBe(
      'I cannot reach my storage right now, so nothing was done. Please try again in a minute.',
    );
    redis = await startRedis(redis.port, { dir });
    // Redis reconnects by itself within seconds; the member's retry works.
    let result = await outcome(say(t));
    for (let attempt = 0; attempt < 20 && !result.file; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      result = await outcome(say(t));
    }
    expect(result.file, result.text).toBe(true);
  });

  test('Redis dying while a generation is in flight: the member still gets the audio, and the journal catches up when Redis is back', async () => {
    // The journal's ids, read as another process would (a connection of its own, each time).
    const index = async () => {
      const connection = await openRedis(redis.url, () => undefined);
      try {
        return await new RedisJournalIndex(connection, t.bot.store).ids();
      } finally {
        await connection.close();
      }
    };
    const before = new Set(await index());
    const handle = say(t);
    // Journalled once the API accepted it; then Redis dies while the task generates.
    while ((await index()).every((id) => before.has(id))) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await redis.stop('SIGKILL');
    const result = await outcome(handle);
    expect(result.file, result.text).toBe(true);
    redis = await startRedis(redis.port, { dir });
    // The next request's journal writes also remove the one whose removal Redis refused.
    let next = await outcome(say(t));
    for (let attempt = 0; attempt < 20 && !next.file; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      next = await outcome(say(t));
    }
    expect(next.file, next.text).toBe(true);
    // Removals run after delivery; the one Redis refused is retried with the next request's.
    for (let attempt = 0; attempt < 100 && (await index()).length > 0; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await index()).toEqual([]);
  });
});
