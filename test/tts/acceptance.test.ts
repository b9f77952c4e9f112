import { afterAll, beforeAll, expect, test } from 'vitest';
import { DEFAULT_LIMITS, type FinishedGeneration } from '../../src/tts/index.ts';
import {
  defaultGenerationMs,
  type Emulator,
  startEmulator,
  USER_ONE,
} from '../../tools/emulator/index.ts';
import { clientsFor, count429, entriesOf, scaleLimits, sentence } from './emulated.ts';

/**
 * The acceptance criterion: "Against the emulator with 30 generations
 * requested at once on one key: 0 responses with status 429, all 30 complete,
 * the first 20 submitted within the first minute and the rest in the next."
 * Everything runs 10× faster: the emulator's minute and the client's default
 * limits, poll cadence and generation times are scaled alike.
 */
const SCALE = 0.1;
const MINUTE = 60_000 * SCALE;

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator({
    synth: 'tone',
    timeScale: SCALE,
    generationMs: (model, length) => defaultGenerationMs(model, length) * SCALE,
  });
});
afterAll(() => emulator.close());

test('30 generations at once on one key: no 429, all complete, 20 in the first minute and 10 in the next', async () => {
  const { clients, background } = clientsFor(emulator, {
    limits: scaleLimits(DEFAULT_LIMITS, SCALE),
    pollIntervalMs: { min: 1000 * SCALE, max: 2000 * SCALE },
    requestTimeoutMs: 15_000,
    maxRetries: 4,
    maxBudgetWaitMs: 5 * MINUTE,
    pollDeadlineMs: 5 * MINUTE,
  });
  const client = clients.forKey(USER_ONE.apiKey);
  const results = await Promise.allSettled(
    Array.from({ length: 30 }, (_, i) =>
      client.generate({
        text: `${i + 1}. ${sentence(60)}`,
        voiceId: 'am_2riuownnf',
        model: 'base',
      }),
    ),
  );

  expect(count429(emulator)).toBe(0);
  expect(results.filter((result) => result.status === 'rejected')).toEqual([]);
  const finished = results.flatMap((result) =>
    result.status === 'fulfilled' ? [result.value] : [],
  ) satisfies FinishedGeneration[];
  expect(new Set(finished.map((done) => done.generationId)).size).toBe(30);
  for (const done of finished) {
    expect(emulator.generation(done.generationId)?.status).toBe('Completed');
  }
  expect(background).toEqual([]);

  const posts = entriesOf(emulator, 'POST /v2/tts');
  expect(posts.map((entry) => entry.status)).toEqual(Array(30).fill(201));
  const first = posts[0]?.at ?? 0;
  const offsets = posts.map((entry) => entry.at - first);
  // The first 20 within the first minute...
  expect(offsets.slice(0, 20).every((offset) => offset < MINUTE)).toBe(true);
  // ...and the other 10 in the next one (with room for the client's safety margin).
  expect(offsets.slice(20).every((offset) => offset > 0.9 * MINUTE && offset < 2 * MINUTE)).toBe(
    true,
  );
  // Polling stayed within the status limit too.
  expect(entriesOf(emulator, 'GET /v2/status').every((entry) => entry.status === 200)).toBe(true);
});
