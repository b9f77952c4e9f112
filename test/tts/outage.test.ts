/**
 * An outage of the API that outlasts the poll deadline, against the emulator: polls that fail
 * say nothing about the task, so the generation is not given up; the first answer after the
 * outage decides (the audio when it is done, the timeout when it still runs).
 */
import { afterAll, beforeAll, beforeEach, expect, test } from 'vitest';
import { type Emulator, startEmulator, USER_ONE } from '../../tools/emulator/index.ts';
import { clientsFor, entriesOf, failure, sentence, TIME_SCALE, until } from './emulated.ts';

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator({ synth: 'tone', timeScale: TIME_SCALE, generationMs: () => 50 });
});
afterAll(() => emulator?.close());
beforeEach(() => emulator.reset());

/** A client whose deadline (300 ms) is shorter than the outage, with no retries inside a poll. */
function client() {
  return clientsFor(emulator, { pollDeadlineMs: 300, maxRetries: 0 }).clients.forKey(
    USER_ONE.apiKey,
  );
}

/** Every status request is dropped until the outage has lasted longer than the deadline. */
async function outage(): Promise<void> {
  emulator.fault({ kind: 'drop', endpoint: 'GET /v2/status', times: Number.POSITIVE_INFINITY });
  await until(() => entriesOf(emulator, 'GET /v2/status').length >= 1);
  const start = Date.now();
  await until(() => Date.now() - start > 500);
  emulator.clearFaults();
}

test('the API unreachable for longer than the deadline, then back: the audio is delivered, one POST /tts', async () => {
  const done = client().generate({ text: sentence(), voiceId: 'am_2riuownnf', model: 'base' });
  await outage();
  const finished = await done;
  expect(finished.audioUrl).toContain(finished.generationId);
  const polls = entriesOf(emulator, 'GET /v2/status');
  expect(polls.filter((p) => p.status === 0).length).toBeGreaterThanOrEqual(1);
  expect(polls.at(-1)?.status).toBe(200);
  expect(emulator.counts()['POST /v2/tts']?.total).toBe(1);
});

test('a task still running after such an outage ends at the first answer after it', async () => {
  emulator.fault({ kind: 'never-complete' });
  const done = client().generate({ text: sentence(), voiceId: 'am_2riuownnf', model: 'base' });
  await outage();
  const error = await failure(done, 'generation_timeout');
  expect(error.generationId).toMatch(/^base_/);
  const answered = entriesOf(emulator, 'GET /v2/status').filter((p) => p.status === 200);
  expect(answered.length).toBeGreaterThanOrEqual(1);
});
