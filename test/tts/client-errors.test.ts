import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { parseLimits, TtsError } from '../../src/tts/index.ts';
import {
  type Emulator,
  type EmulatorOptions,
  startEmulator,
  USER_ONE,
  USER_POOR,
  USER_TWO,
} from '../../tools/emulator/index.ts';
import {
  clientsFor,
  entriesOf,
  failure,
  sentence,
  statusesOf,
  TIME_SCALE,
  until,
} from './emulated.ts';

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => {
  unhandled.push(reason);
};
beforeAll(() => {
  process.on('unhandledRejection', onUnhandled);
});
afterAll(() => {
  process.off('unhandledRejection', onUnhandled);
  expect(unhandled).toEqual([]);
});

/** Starts an emulator for one describe block and closes it after. */
function withEmulator(options: EmulatorOptions = {}): () => Emulator {
  let emulator: Emulator | undefined;
  beforeAll(async () => {
    emulator = await startEmulator({
      synth: 'tone',
      timeScale: TIME_SCALE,
      generationMs: () => 30,
      ...options,
    });
  });
  afterAll(() => emulator?.close());
  beforeEach(() => emulator?.reset());
  return () => {
    if (emulator === undefined) throw new Error('emulator not started');
    return emulator;
  };
}

const request = { text: sentence(), voiceId: 'am_2riuownnf', model: 'base' } as const;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Gaps in ms between consecutive log entries. */
function gaps(times: readonly number[]): number[] {
  return times.slice(1).map((time, i) => time - (times[i] ?? time));
}

describe('API errors, typed by cause', () => {
  const emu = withEmulator();

  test('401 → invalid_key, not retried, key absent from the message', async () => {
    const client = clientsFor(emu()).clients.forKey('adx_not_a_real_key_9999');
    const error = await failure(client.verify('base'), 'invalid_key');
    expect(error).toMatchObject({ status: 401, message: 'Invalid API Key' });
    expect(error.message).not.toContain('adx_not_a_real_key_9999');
    await failure(client.submit(request), 'invalid_key');
    expect(statusesOf(emu(), 'GET /v2/voices')).toEqual([401]);
    expect(statusesOf(emu(), 'POST /v2/tts')).toEqual([401]);
  });

  test("403 → access_denied for another user's generation", async () => {
    const { clients } = clientsFor(emu());
    const id = await clients.forKey(USER_ONE.apiKey).submit(request);
    const error = await failure(
      clients.forKey(USER_TWO.apiKey).waitFor({
        learn: true,
        generationId: id,
        model: 'base',
        textLength: 60,
        submittedAt: Date.now(),
      }),
      'access_denied',
    );
    expect(error).toMatchObject({ status: 403, message: 'Access denied for this generation' });
  });

  test('403 → plan_required for a premium voice on the free plan', async () => {
    const client = clientsFor(emu()).clients.forKey(USER_TWO.apiKey);
    const error = await failure(
      client.submit({ ...request, voiceId: 'am_9wq4n1kzd' }),
      'plan_required',
    );
    expect(error.status).toBe(403);
    expect(error.message).toMatch(/^This voice is only available for paid plans/);
  });

  test('404 → not_found for an unknown generation', async () => {
    const client = clientsFor(emu()).clients.forKey(USER_ONE.apiKey);
    const error = await failure(
      client.waitFor({
        learn: true,
        generationId: 'base_00000000-0000-0000-0000-000000000000',
        model: 'base',
        textLength: 60,
        submittedAt: Date.now(),
      }),
      'not_found',
    );
    expect(error).toMatchObject({ status: 404, message: 'Generation not found' });
    expect(statusesOf(emu(), 'GET /v2/status')).toEqual([404]);
  });

  test.each([
    [
      'detail as a string',
      { model: 'advance', voiceId: 'af_adv_w3n8q1', emotion: 'furious' },
      "Invalid Emotion | Expected: ['neutral', 'happy', 'sad', 'angry', 'surprised']",
    ],
    ['detail as an object', { text: 'Too short.' }, 'Text must be at least 30 characters long.'],
    ['detail as a list', { speed: 5 }, 'speed: Input should be less than or equal to 2'],
  ])('400 → bad_request, %s → one sentence', async (_name, change, sentenceText) => {
    const client = clientsFor(emu()).clients.forKey(USER_ONE.apiKey);
    const error = await failure(
      client.submit({ ...request, ...change } as typeof request),
      'bad_request',
    );
    expect(error).toMatchObject({ status: 400, message: sentenceText });
  });

  test('400 Invalid voice ID → invalid_voice (also for another account’s clone)', async () => {
    const client = clientsFor(emu()).clients.forKey(USER_ONE.apiKey);
    const error = await failure(client.submit({ ...request, voiceId: 'xx_nope' }), 'invalid_voice');
    expect(error).toMatchObject({ status: 400, message: 'Invalid voice ID' });
    await failure(
      client.submit({ ...request, model: 'advance', voiceId: 'adv_user_clone_abc' }),
      'invalid_voice',
    );
  });

  test('402 → insufficient_balance', async () => {
    const client = clientsFor(emu()).clients.forKey(USER_POOR.apiKey);
    const error = await failure(
      client.submit({ ...request, text: sentence(150) }),
      'insufficient_balance',
    );
    expect(error).toMatchObject({ status: 402, message: 'Insufficient Balance' });
  });

  test('quota_exhausted from the client’s own budget: no request is sent', async () => {
    const client = clientsFor(emu(), {
      limits: parseLimits('generate=1/1m'),
      maxBudgetWaitMs: 1000,
    }).clients.forKey(USER_ONE.apiKey);
    await client.submit(request);
    const error = await failure(client.submit(request), 'quota_exhausted');
    expect(error.message).toBe('the generate limit of 1 per 1 minute is used up');
    expect(error.retryAt).toBeGreaterThan(Date.now() + 50_000);
    expect(statusesOf(emu(), 'POST /v2/tts')).toEqual([201]);
  });
});

describe('server errors, timeouts and dropped connections', () => {
  const emu = withEmulator();

  test('POST 500 → server_error, sent once (a retry could cost quota twice)', async () => {
    emu().fault({ kind: 'http-error', endpoint: 'POST /v2/tts', times: 3 });
    const client = clientsFor(emu()).clients.forKey(USER_ONE.apiKey);
    const error = await failure(client.submit(request), 'server_error');
    expect(error).toMatchObject({
      status: 500,
      message: 'Error Occured while Creating generation...',
    });
    expect(emu().counts()['POST /v2/tts']).toEqual({ total: 1, byStatus: { 500: 1 } });
  });

  test('GET 5xx is retried with backoff, then succeeds', async () => {
    emu().fault({
      kind: 'http-error',
      endpoint: 'GET /v2/voices',
      status: 503,
      body: { detail: 'Service Unavailable' },
    });
    const client = clientsFor(emu()).clients.forKey(USER_ONE.apiKey);
    await expect(client.verify('base')).resolves.toContainEqual(
      expect.objectContaining({ voiceId: 'am_2riuownnf' }),
    );
    const entries = entriesOf(emu(), 'GET /v2/voices');
    expect(entries.map((entry) => entry.status)).toEqual([503, 200]);
    expect(gaps(entries.map((entry) => entry.at))[0]).toBeGreaterThanOrEqual(950);
  });

  test('GET 5xx on every attempt → server_error after maxRetries', async () => {
    emu().fault({ kind: 'http-error', endpoint: 'GET /v2/voices', times: Infinity });
    const client = clientsFor(emu(), { maxRetries: 1 }).clients.forKey(USER_ONE.apiKey);
    await failure(client.verify('base'), 'server_error');
    expect(statusesOf(emu(), 'GET /v2/voices')).toEqual([500, 500]);
  });

  test('POST slower than requestTimeoutMs → timeout, not repeated', async () => {
    emu().fault({ kind: 'delay', endpoint: 'POST /v2/tts', ms: 1000 });
    const client = clientsFor(emu(), { requestTimeoutMs: 200 }).clients.forKey(USER_ONE.apiKey);
    const error = await failure(client.submit(request), 'timeout');
    expect(error.message).toBe('POST /v2/tts got no answer within 200 ms');
    await sleep(1500);
    expect(entriesOf(emu(), 'POST /v2/tts')).toHaveLength(1);
  });

  test('GET slower than requestTimeoutMs is retried and succeeds', async () => {
    emu().fault({ kind: 'delay', endpoint: 'GET /v2/voices', ms: 1000 });
    const client = clientsFor(emu(), { requestTimeoutMs: 200 }).clients.forKey(USER_ONE.apiKey);
    await expect(client.verify('base')).resolves.not.toHaveLength(0);
    await until(() => entriesOf(emu(), 'GET /v2/voices').length === 2);
    expect(statusesOf(emu(), 'GET /v2/voices')).toContain(200);
  });

  test('GET dropped → network failure retried, then succeeds', async () => {
    emu().fault({ kind: 'drop', endpoint: 'GET /v2/voices' });
    const client = clientsFor(emu()).clients.forKey(USER_ONE.apiKey);
    await expect(client.verify('base')).resolves.not.toHaveLength(0);
    expect(statusesOf(emu(), 'GET /v2/voices')).toEqual([0, 200]);
  });

  test('POST dropped → network, and NOT repeated (a duplicate would cost quota)', async () => {
    emu().fault({ kind: 'drop', endpoint: 'POST /v2/tts' });
    const client = clientsFor(emu()).clients.forKey(USER_ONE.apiKey);
    const error = await failure(client.submit(request), 'network');
    expect(error.message).toBe(
      'POST /v2/tts failed: the connection was closed before an answer (UND_ERR_SOCKET)',
    );
    await sleep(1200);
    expect(emu().counts()['POST /v2/tts']).toEqual({ total: 1, byStatus: { 0: 1 } });
  });

  test('connection refused → network; even a POST is retried, since it never left', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    let fetches = 0;
    const counted: typeof fetch = (input, init) => {
      fetches++;
      return fetch(input, init);
    };
    const client = clientsFor(emu(), {
      baseUrl: `http://127.0.0.1:${port}/v2`,
      fetch: counted,
      maxRetries: 1,
    }).clients.forKey(USER_ONE.apiKey);
    const error = await failure(client.submit(request), 'network');
    expect(error.message).toBe('POST /v2/tts failed: connection refused (ECONNREFUSED)');
    expect(fetches).toBe(2);
  });

  test('a status poll that keeps failing is reported in the background and polling resumes', async () => {
    const { clients, background } = clientsFor(emu(), { maxRetries: 0 });
    const client = clients.forKey(USER_ONE.apiKey);
    const id = await client.submit(request);
    emu().fault({ kind: 'http-error', endpoint: 'GET /v2/status', status: 502 });
    const audioUrl = await client.waitFor({
      learn: true,
      generationId: id,
      model: 'base',
      textLength: 60,
      submittedAt: Date.now(),
    });
    expect(audioUrl).toContain(id);
    expect(background).toEqual([expect.objectContaining({ kind: 'server_error', status: 502 })]);
  });
});

describe('malformed answers and generation outcomes', () => {
  const emu = withEmulator();

  test('truncated JSON → malformed_response (POST not repeated)', async () => {
    emu().fault({ kind: 'malformed', endpoint: 'POST /v2/tts' });
    const client = clientsFor(emu()).clients.forKey(USER_ONE.apiKey);
    const error = await failure(client.submit(request), 'malformed_response');
    expect(error.message).toBe('POST /v2/tts answered with invalid JSON');
    expect(entriesOf(emu(), 'POST /v2/tts')).toHaveLength(1);
  });

  test('truncated JSON on GET /voices → malformed_response', async () => {
    emu().fault({ kind: 'malformed', endpoint: 'GET /v2/voices' });
    const client = clientsFor(emu()).clients.forKey(USER_ONE.apiKey);
    const error = await failure(client.verify('base'), 'malformed_response');
    expect(error.message).toBe('GET /v2/voices answered with invalid JSON');
  });

  test('valid JSON of the wrong shape → malformed_response naming the field', async () => {
    emu().fault({
      kind: 'http-error',
      endpoint: 'GET /v2/voices',
      status: 200,
      body: { voices: [{ name: 'no id' }] },
    });
    const client = clientsFor(emu()).clients.forKey(USER_ONE.apiKey);
    const error = await failure(client.verify('base'), 'malformed_response');
    expect(error.message).toBe('GET /voices answered an unexpected shape (voices.0.voice_id)');
  });

  test('Failed → generation_failed with the reason and the generation id', async () => {
    emu().fault({ kind: 'fail', error: 'Speech engine crashed' });
    const client = clientsFor(emu()).clients.forKey(USER_ONE.apiKey);
    let generationId = '';
    const error = await failure(
      client.generate(request, {
        onProgress: (progress) => {
          if (progress.stage === 'generating') generationId = progress.generationId;
        },
      }),
      'generation_failed',
    );
    expect(generationId).not.toBe('');
    expect(error.generationId).toBe(generationId);
    expect(error.message).toBe(`generation ${generationId} failed: Speech engine crashed`);
  });

  test('a 6,000-character error detail quoting the key is cut to 300 characters without the key', async () => {
    const detail = `Bad input from ${USER_ONE.apiKey}: ${'x'.repeat(6000)}`;
    emu().fault({ kind: 'http-error', endpoint: 'POST /v2/tts', status: 400, body: { detail } });
    const client = clientsFor(emu()).clients.forKey(USER_ONE.apiKey);
    const error = await failure(client.submit(request), 'bad_request');
    expect(error.message.length).toBeLessThanOrEqual(300);
    expect(error.message).toMatch(/^Bad input from \[API key\]: x+…$/);
  });

  test('a failed generation’s reason and an unknown status are cut and never quote the key', async () => {
    emu().fault({ kind: 'fail', error: `engine said ${USER_ONE.apiKey} ${'z'.repeat(5000)}` });
    const client = clientsFor(emu()).clients.forKey(USER_ONE.apiKey);
    const error = await failure(client.generate(request), 'generation_failed');
    expect(error.message).not.toContain(USER_ONE.apiKey);
    expect(error.message.length).toBeLessThan(400);
  });

  test('an unknown status is a reported failure, never polled forever', async () => {
    const client = clientsFor(emu()).clients.forKey(USER_ONE.apiKey);
    const id = await client.submit(request);
    emu().fault({
      kind: 'http-error',
      endpoint: 'GET /v2/status',
      status: 200,
      body: { generation_id: id, status: 'Queued', audio_url: null },
    });
    const error = await failure(
      client.waitFor({
        learn: true,
        generationId: id,
        model: 'base',
        textLength: 60,
        submittedAt: Date.now(),
      }),
      'generation_failed',
    );
    expect(error.message).toBe(`generation ${id} failed: unknown status "Queued"`);
    expect(statusesOf(emu(), 'GET /v2/status')).toEqual([200]);
  });

  test('Completed without an audio address → malformed_response', async () => {
    const client = clientsFor(emu()).clients.forKey(USER_ONE.apiKey);
    const id = await client.submit(request);
    emu().fault({
      kind: 'http-error',
      endpoint: 'GET /v2/status',
      status: 200,
      body: { generation_id: id, status: 'Completed', audio_url: null },
    });
    const error = await failure(
      client.waitFor({
        learn: true,
        generationId: id,
        model: 'base',
        textLength: 60,
        submittedAt: Date.now(),
      }),
      'malformed_response',
    );
    expect(error).toMatchObject({
      generationId: id,
      message: `generation ${id} completed without an audio address`,
    });
  });

  test('never completes → generation_timeout after pollDeadlineMs, generation id kept', async () => {
    emu().fault({ kind: 'never-complete' });
    const client = clientsFor(emu(), { pollDeadlineMs: 400 }).clients.forKey(USER_ONE.apiKey);
    let generationId = '';
    const error = await failure(
      client.generate(request, {
        onProgress: (progress) => {
          if (progress.stage === 'generating') generationId = progress.generationId;
        },
      }),
      'generation_timeout',
    );
    expect(error.generationId).toBe(generationId);
    expect(error.message).toBe(`generation ${generationId} was still running after 400 ms`);
    expect(emu().generation(generationId)?.status).toBe('Generating');
  });

  test('an aborted generation rejects with the abort reason and stops polling', async () => {
    emu().fault({ kind: 'never-complete' });
    const client = clientsFor(emu()).clients.forKey(USER_ONE.apiKey);
    const controller = new AbortController();
    const done = client.generate(request, { signal: controller.signal });
    await until(() => statusesOf(emu(), 'GET /v2/status').length >= 1);
    controller.abort(new Error('user cancelled'));
    await expect(done).rejects.toThrow('user cancelled');
    const polls = statusesOf(emu(), 'GET /v2/status').length;
    await sleep(200);
    expect(statusesOf(emu(), 'GET /v2/status')).toHaveLength(polls);
  });
});

describe('429 from the server (the client thinks it has budget)', () => {
  // A scaled minute of 3 s: long enough to exhaust a key from the test, short enough to wait out.
  const emu = withEmulator({ timeScale: 0.05 });
  const generous = parseLimits('generate=1000/1m,status=1000/1m,voices=1000/1m,health=1000/1m');

  async function exhaust(path: string, count: number, init: RequestInit = {}): Promise<void> {
    for (let i = 0; i < count; i++) {
      const res = await fetch(`${emu().origin}${path}`, {
        ...init,
        headers: { 'x-api-key': USER_ONE.apiKey, 'content-type': 'application/json' },
      });
      expect(res.status).toBeLessThan(300);
      await res.arrayBuffer();
    }
  }

  test('GET 429 is retried with exponential backoff until the window frees', async () => {
    await exhaust('/v2/voices?model=base', 10);
    const client = clientsFor(emu(), { limits: generous, maxRetries: 5 }).clients.forKey(
      USER_ONE.apiKey,
    );
    await expect(client.verify('base')).resolves.not.toHaveLength(0);
    const mine = entriesOf(emu(), 'GET /v2/voices').slice(10);
    const statuses = mine.map((entry) => entry.status);
    expect(statuses.at(-1)).toBe(200);
    expect(statuses.slice(0, -1).every((status) => status === 429)).toBe(true);
    expect(statuses.length).toBeGreaterThanOrEqual(2);
    // Waits of 1 s, 2 s, 4 s... between attempts.
    gaps(mine.map((entry) => entry.at)).forEach((gap, i) => {
      expect(gap).toBeGreaterThanOrEqual(1000 * 2 ** i - 50);
    });
  });

  test('POST 429 is retried (the server refused it, so it cannot be a duplicate)', async () => {
    await exhaust('/v2/tts', 20, {
      method: 'POST',
      body: JSON.stringify({ text: sentence(), voice: 'am_2riuownnf' }),
    });
    const client = clientsFor(emu(), { limits: generous, maxRetries: 5 }).clients.forKey(
      USER_ONE.apiKey,
    );
    const id = await client.submit(request);
    expect(emu().generation(id)).toBeDefined();
    const statuses = statusesOf(emu(), 'POST /v2/tts').slice(20);
    expect(statuses.at(-1)).toBe(201);
    expect(statuses.filter((status) => status === 201)).toHaveLength(1);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(1);
  });

  test('429 with no retries left → rate_limited with the limit named', async () => {
    await exhaust('/v2/voices?model=base', 10);
    const client = clientsFor(emu(), { limits: generous, maxRetries: 0 }).clients.forKey(
      USER_ONE.apiKey,
    );
    const error = await failure(client.verify('base'), 'rate_limited');
    expect(error).toMatchObject({ status: 429, message: 'Too Many Requests: 10 per 1 minute' });
    expect(error).toBeInstanceOf(TtsError);
  });
});

describe('429 with Retry-After', () => {
  const emu = withEmulator({ timeScale: 0.05, retryAfter: true });

  test('the wait follows Retry-After: one 429, then success', async () => {
    for (let i = 0; i < 10; i++) {
      const res = await fetch(`${emu().baseUrl}/voices?model=base`, {
        headers: { 'x-api-key': USER_ONE.apiKey },
      });
      await res.arrayBuffer();
    }
    const client = clientsFor(emu(), {
      limits: parseLimits('voices=1000/1m'),
      maxRetries: 5,
    }).clients.forKey(USER_ONE.apiKey);
    await client.verify('base');
    const mine = entriesOf(emu(), 'GET /v2/voices').slice(10);
    expect(mine.map((entry) => entry.status)).toEqual([429, 200]);
  });
});
