import { describe, expect, test } from 'vitest';
import { RateGate } from '../../src/tts/gate.ts';
import { callApi, type HttpContext } from '../../src/tts/http.ts';
import {
  MemoryBudgetStore,
  parseLimits,
  systemClock,
  type TtsClientOptions,
  TtsClients,
  TtsError,
} from '../../src/tts/index.ts';
import { keyId } from '../../src/tts/key.ts';
import { FakeClock } from '../support/fake-clock.ts';

/** Options for a client whose requests are counted and go to the real `fetch` (nothing listens there). */
function options(fetcher: typeof fetch, background: unknown[] = []): TtsClientOptions {
  return {
    baseUrl: 'http://127.0.0.1:9/v2',
    media: { origins: ['http://127.0.0.1:9'], maxBytes: 1000, timeoutMs: 1000 },
    budgets: new MemoryBudgetStore(parseLimits('generate=20/1m,status=60/1m,voices=10/1m')),
    clock: systemClock,
    fetch: fetcher,
    requestTimeoutMs: 1000,
    maxRetries: 2,
    maxBudgetWaitMs: 1000,
    pollDeadlineMs: 1000,
    pollIntervalMs: { min: 20, max: 40 },
    voicesTtlMs: 60_000,
    onBackgroundError: (error) => background.push(error),
  };
}

function counted(): { fetch: typeof fetch; calls: () => number } {
  let calls = 0;
  return {
    fetch: (input, init) => {
      calls++;
      return globalThis.fetch(input, init);
    },
    calls: () => calls,
  };
}

async function caught(promise: Promise<unknown>): Promise<TtsError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(TtsError);
    return error as TtsError;
  }
  throw new Error('expected a failure');
}

/** Every way an error could reach a log line: none may carry the key. */
function expectKeyAbsent(error: TtsError, key: string): void {
  for (const text of [String(error), error.message, JSON.stringify(error), error.stack ?? '']) {
    expect(text).not.toContain(key);
  }
  expect(error.cause).toBeUndefined();
}

const request = { text: 'x'.repeat(40), voiceId: 'am_2riuownnf', model: 'base' } as const;

describe('an API key that an HTTP header cannot carry', () => {
  test.each([
    ['a NUL', 'adx_secret\0value'],
    ['CR LF', 'adx_secret\r\nx-injected: 1'],
    ['a line feed', 'adx_secret\nvalue'],
    ['non-ASCII', 'adx_sécret_ключ'],
    ['a space', 'adx_secret value'],
    ['a tab', 'adx_secret\tvalue'],
  ])(
    'with %s: every call fails at once with invalid_key, no request, no trace of the key',
    async (_, key) => {
      const { fetch, calls } = counted();
      const client = new TtsClients(options(fetch)).forKey(key);
      const attempts: Promise<unknown>[] = [
        client.verify('base'),
        client.voices('base'),
        client.submit(request),
        client.generate(request),
        client.health(),
        client.waitFor({
          learn: true,
          generationId: 'g',
          model: 'base',
          textLength: 40,
          submittedAt: 0,
        }),
      ];
      const settled = await Promise.allSettled(attempts);
      for (const result of settled) {
        const error = await caught(
          result.status === 'rejected' ? Promise.reject(result.reason) : Promise.resolve(),
        );
        expect(error).toMatchObject({
          kind: 'invalid_key',
          message: 'the API key contains characters that cannot be sent in an HTTP header',
        });
        expectKeyAbsent(error, key);
      }
      expect(calls()).toBe(0);
    },
  );

  test('an empty key fails the same way', async () => {
    const { fetch, calls } = counted();
    const error = await caught(new TtsClients(options(fetch)).forKey('').verify('base'));
    expect(error).toMatchObject({ kind: 'invalid_key' });
    expect(error.cause).toBeUndefined();
    expect(calls()).toBe(0);
  });

  test('a fetch failure whose text quotes the key is reported without it, and not as a network error', async () => {
    const key = 'adx_valid_looking_key_1234';
    const leaky: typeof fetch = async () => {
      throw new TypeError(`Headers.append: "${key}" is an invalid header value.`);
    };
    const error = await caught(new TtsClients(options(leaky)).forKey(key).verify('base'));
    expect(error.kind).toBe('invalid_key');
    expectKeyAbsent(error, key);
  });

  test('send() itself refuses such a key without a request, even when no client checked it', async () => {
    const key = 'adx_secret\r\nvalue';
    const { fetch, calls } = counted();
    const clock = new FakeClock(0);
    const context: HttpContext = {
      baseUrl: 'http://127.0.0.1:9/v2',
      apiKey: key,
      keyId: keyId(key),
      gate: new RateGate({
        store: new MemoryBudgetStore(parseLimits('voices=10/1m')),
        clock,
        maxWaitMs: 0,
      }),
      clock,
      fetch,
      timeoutMs: 1000,
      maxRetries: 2,
    };
    const error = await caught(callApi(context, { op: 'voices', method: 'GET', path: '/voices' }));
    expect(error.kind).toBe('invalid_key');
    expectKeyAbsent(error, key);
    expect(calls()).toBe(0);
  });
});
