import { afterAll, beforeAll, expect, test } from 'vitest';
import { type BudgetStore, type LimitUsage, MemoryBudgetStore } from '../../src/tts/index.ts';
import type { Operation } from '../../src/tts/types.ts';
import { type Emulator, startEmulator, USER_ONE } from '../../tools/emulator/index.ts';
import { clientsFor, SCALED_LIMITS, sentence, TIME_SCALE } from './emulated.ts';

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator({ synth: 'tone', timeScale: TIME_SCALE, generationMs: () => 30 });
});
afterAll(() => emulator.close());

/** Budgets that work, except that moving a request to its answer time always fails (a journal save error). */
class RestampFails implements BudgetStore {
  readonly #inner = new MemoryBudgetStore(SCALED_LIMITS);
  take(keyId: string, op: Operation, now: number) {
    return this.#inner.take(keyId, op, now);
  }
  async restamp(): Promise<void> {
    throw new Error('journal save failed');
  }
  usage(keyId: string, op: Operation, now: number): Promise<LimitUsage[]> {
    return this.#inner.usage(keyId, op, now);
  }
}

test('a restamp failure does not replace the answer of a POST that succeeded; it is reported', async () => {
  const { clients, background } = clientsFor(emulator, { budgets: new RestampFails() });
  const client = clients.forKey(USER_ONE.apiKey);
  const id = await client.submit({ text: sentence(), voiceId: 'am_2riuownnf', model: 'base' });
  expect(emulator.generation(id)).toBeDefined();
  expect(background).toEqual([expect.objectContaining({ message: 'journal save failed' })]);
  // Failures of the call itself still win over the restamp failure.
  await expect(
    clients.forKey('adx_not_a_real_key_9999').submit({
      text: sentence(),
      voiceId: 'am_2riuownnf',
      model: 'base',
    }),
  ).rejects.toMatchObject({ kind: 'invalid_key' });
  expect(background).toHaveLength(2);
});
