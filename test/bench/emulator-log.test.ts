/** The benchmark's readings of the emulator log, against a real emulator and the naive client. */
import { afterAll, beforeAll, expect, test } from 'vitest';
import {
  benchText,
  benchUser,
  count429,
  noticeOf,
  polledGenerations,
} from '../../bench/emulator-log.ts';
import { naiveGenerate } from '../../bench/naive.ts';
import { type Emulator, startEmulator } from '../../tools/emulator/index.ts';

const user = benchUser('log_test');
let emulator: Emulator;

beforeAll(async () => {
  emulator = await startEmulator({ synth: 'tone', users: [user], generationMs: () => 250 });
});
afterAll(async () => {
  await emulator?.close();
});

test('benchText has the asked length (at least 30) and differs per request number', () => {
  expect(benchText(75, 1)).toHaveLength(75);
  expect(benchText(10, 1)).toHaveLength(30);
  expect(benchText(60, 1)).not.toBe(benchText(60, 2));
});

test('notice lag and polls of a naive generation: polled every 100 ms, so seen within 100 ms', async () => {
  const done = await naiveGenerate({
    baseUrl: emulator.baseUrl,
    apiKey: user.apiKey,
    text: benchText(40, 1),
    voiceId: 'am_2riuownnf',
    pollMs: 100,
    ffmpegPath: 'ffmpeg',
  });
  const notice = noticeOf(emulator, emulator.requests, done.generationId);
  expect(notice?.polls).toBe(done.polls);
  expect(notice?.polls).toBeGreaterThanOrEqual(2); // 250 ms to generate, a poll each 100 ms
  expect(notice?.lagMs).toBeGreaterThanOrEqual(0);
  expect(notice?.lagMs).toBeLessThan(250);
  expect(notice?.seenAt).toBeLessThanOrEqual(done.completedSeenAt);
  expect(done.transcodedAt).toBeGreaterThanOrEqual(done.deliveredAt);
  expect(polledGenerations(emulator.requests, [user])).toContain(done.generationId);
  expect(count429(emulator.requests, [user])).toBe(0);
  expect(noticeOf(emulator, emulator.requests, 'base_unknown')).toBeUndefined();
});
