import { afterAll, beforeAll, expect, test } from 'vitest';
import type { LearnedState } from '../../src/tts/estimator.ts';
import type { LearnedTimesStore } from '../../src/tts/learned-times.ts';
import { type Emulator, startEmulator, USER_ONE } from '../../tools/emulator/index.ts';
import { clientsFor, count429, sentence } from './emulated.ts';

/**
 * Issue 29 end to end: a fresh key on an API about 1.6x slower than the prior (1.5 s + 20 ms per
 * character, as a new server meets a real API), at real time with the spec's 1–2 s cadence.
 */
const slower = (length: number) => 1500 + 20 * length;

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator({ synth: 'tone', generationMs: (_model, n) => slower(n) });
});
afterAll(() => emulator.close());

test('a fresh key on a slower API: all complete without a 429, each bracketed by polls at most a short interval apart', async () => {
  let saved: LearnedState | undefined;
  const store: LearnedTimesStore = {
    load: async () => undefined,
    save: async (_id, learned) => {
      saved = learned;
    },
  };
  const { clients, background } = clientsFor(emulator, {
    pollIntervalMs: { min: 1000, max: 2000 },
    pollDeadlineMs: 60_000,
    learning: { store },
  });
  const client = clients.forKey(USER_ONE.apiKey);
  for (const length of [40, 60, 30, 50]) {
    await client.generate({ text: sentence(length), voiceId: 'am_2riuownnf', model: 'base' });
  }
  await clients.saveLearned();

  expect(count429(emulator)).toBe(0);
  expect(background).toEqual([]);
  const samples = saved?.base?.samples ?? [];
  expect(samples).toHaveLength(4);
  // The prior (800 + 15/char) is too fast here, so the first polls find tasks running, and the
  // re-checks that follow come within the lag budget (400 ms), not at the spec's 1–2 s cadence
  // that the schedule fell back to before: each finish is bracketed to well under a second
  // (the slack is for a loaded machine's late timers).
  const seenRunning = samples.filter(([, afterMs]) => afterMs > 0);
  expect(seenRunning.length).toBeGreaterThan(0);
  for (const [, afterMs, byMs] of seenRunning) expect(byMs - afterMs).toBeLessThan(1000);
});
