import { afterAll, beforeAll, expect, test } from 'vitest';
import { parseLimits } from '../../src/tts/index.ts';
import { type Emulator, startEmulator, USER_ONE } from '../../tools/emulator/index.ts';
import { clientsFor, sentence } from './emulated.ts';

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator({ synth: 'tone', timeScale: 0.01, generationMs: () => 30 });
});
afterAll(() => emulator.close());

test('each generation learns how many of its key’s generations wait ahead of it, and that shrinks', async () => {
  const { clients } = clientsFor(emulator, { limits: parseLimits('generate=1/300ms') });
  const client = clients.forKey(USER_ONE.apiKey);
  const ahead: (() => number)[] = [];
  const seen: number[][] = [];
  const all = Array.from({ length: 3 }, () =>
    client.generate(
      { text: sentence(40), voiceId: 'am_2riuownnf', model: 'base' },
      {
        onProgress: (progress) => {
          if (progress.stage === 'waiting-for-budget') ahead.push(progress.ahead);
          else seen.push(ahead.map((count) => count()));
        },
      },
    ),
  );
  expect(ahead.map((count) => count())).toEqual([0, 1, 2]);
  await Promise.all(all);
  // When the first was submitted the others moved up; when the last was, nobody waited.
  expect(seen[0]).toEqual([-1, 0, 1]);
  expect(seen[2]).toEqual([-1, -1, -1]);
});
