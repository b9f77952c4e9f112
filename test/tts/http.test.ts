import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  type BudgetStore,
  DEFAULT_LIMITS,
  type LimitUsage,
  MemoryBudgetStore,
  systemClock,
  TtsClients,
} from '../../src/tts/index.ts';
import type { Operation } from '../../src/tts/types.ts';
import { type Emulator, startEmulator, USER_ONE } from '../../tools/emulator/index.ts';
import { clientsFor, failure, SCALED_LIMITS, sentence, TIME_SCALE } from './emulated.ts';

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

describe('JSON answers have a size cap', () => {
  const HUGE = 2 * 1024 * 1024;
  const voices = (count: number) =>
    JSON.stringify({
      voices: Array.from({ length: count }, (_, i) => ({
        voice_id: `v${i}`,
        name: 'x'.repeat(100),
      })),
    });
  let server: Server;
  let baseUrl = '';
  beforeAll(async () => {
    server = createServer((request, response) => {
      const huge = voices(Math.ceil(HUGE / 120));
      if (request.url?.startsWith('/declared/voices')) {
        response.writeHead(200, { 'content-type': 'application/json' }).end(huge);
      } else if (request.url?.startsWith('/chunked/voices')) {
        response.writeHead(200, { 'content-type': 'application/json' });
        // No content-length: the cap must hold while reading.
        for (let at = 0; at < huge.length; at += 64 * 1024)
          response.write(huge.slice(at, at + 64 * 1024));
        response.end();
      } else if (request.url?.startsWith('/error/voices')) {
        response.writeHead(400, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ detail: 'y'.repeat(HUGE) }));
      } else {
        response.writeHead(200, { 'content-type': 'application/json' }).end(voices(3));
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const clientAt = (path: string, maxResponseBytes?: number) =>
    new TtsClients({
      baseUrl: `${baseUrl}${path}`,
      media: { origins: [baseUrl], maxBytes: 1024, timeoutMs: 1000 },
      budgets: new MemoryBudgetStore(DEFAULT_LIMITS),
      clock: systemClock,
      requestTimeoutMs: 5000,
      ...(maxResponseBytes === undefined ? {} : { maxResponseBytes }),
      maxRetries: 0,
      maxBudgetWaitMs: 1000,
      pollDeadlineMs: 1000,
      pollIntervalMs: { min: 10, max: 20 },
      voicesTtlMs: 1000,
      onBackgroundError: () => undefined,
    }).forKey(USER_ONE.apiKey);

  test.each(['/declared', '/chunked'])(
    'a 2 MiB answer (%s) fails as malformed_response, by default cap of 1 MiB',
    async (path) => {
      const error = await failure(clientAt(path).verify('base'), 'malformed_response');
      expect(error.message).toBe(`GET ${path}/voices answered more than 1048576 bytes`);
    },
  );

  test('a huge error body keeps its status meaning, without its text', async () => {
    const error = await failure(clientAt('/error').verify('base'), 'bad_request');
    expect(error.message).toBe('HTTP 400');
  });

  test('a normal answer, and a raised cap, still read', async () => {
    expect(await clientAt('/small').verify('base')).toHaveLength(3);
    expect((await clientAt('/declared', 4 * HUGE).verify('base')).length).toBeGreaterThan(1000);
  });
});
