import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { type Emulator, startEmulator, USER_ONE } from '../../tools/emulator/index.ts';
import { call, settled, submit, text, until } from './helpers.ts';

const run = promisify(execFile);
let emu: Emulator;
const KEY = USER_ONE.apiKey;
const body = { text: text(), voice: 'am_2riuownnf' };

beforeAll(async () => {
  emu = await startEmulator({ synth: 'tone', generationMs: () => 20 });
});
afterAll(() => emu.close());
beforeEach(() => emu.reset());

describe('request faults', () => {
  test('http-error is one-shot by default, with the vendor 500 body', async () => {
    emu.fault({ kind: 'http-error', endpoint: 'POST /v2/tts' });
    expect(await call(emu, '/v2/tts', { key: KEY, body })).toMatchObject({
      status: 500,
      json: { detail: 'Error Occured while Creating generation...' },
    });
    expect((await call(emu, '/v2/tts', { key: KEY, body })).status).toBe(201);
  });

  test('http-error N times, with a chosen status and body', async () => {
    emu.fault({
      kind: 'http-error',
      endpoint: 'GET /v2/voices',
      status: 503,
      body: { detail: 'down' },
      times: 2,
    });
    const statuses = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await call(emu, '/v2/voices?model=base', { key: KEY })).status);
    expect(statuses).toEqual([503, 503, 200]);
  });

  test('delay holds the answer at least the given time', async () => {
    emu.fault({ kind: 'delay', endpoint: 'GET /v2/voices', ms: 300 });
    const start = performance.now();
    expect((await call(emu, '/v2/voices?model=base', { key: KEY })).status).toBe(200);
    expect(performance.now() - start).toBeGreaterThanOrEqual(250);
  });

  test('drop closes the connection without an answer and is counted as status 0', async () => {
    emu.fault({ kind: 'drop', endpoint: 'GET /v2/status' });
    await expect(call(emu, '/v2/status?generation_id=x', { key: KEY })).rejects.toThrow();
    await until(() => emu.counts()['GET /v2/status']?.byStatus[0] === 1);
    expect((await call(emu, '/v2/status?generation_id=x', { key: KEY })).status).toBe(404);
  });

  test('malformed sends a truncated JSON body', async () => {
    emu.fault({ kind: 'malformed', endpoint: 'POST /v2/tts' });
    const res = await fetch(`${emu.baseUrl}/tts`, {
      method: 'POST',
      headers: { 'x-api-key': KEY },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    await expect(res.json()).rejects.toThrow();
  });
});

describe('generation faults', () => {
  test('never-complete leaves a task Generating while later ones complete', async () => {
    emu.fault({ kind: 'never-complete' });
    const stuck = await submit(emu, KEY);
    const normal = await submit(emu, KEY);
    await settled(emu, normal);
    expect(emu.generation(normal)?.status).toBe('Completed');
    const answer = await call(emu, `/v2/status?generation_id=${stuck}`, { key: KEY });
    expect(answer.json).toMatchObject({ status: 'Generating', audio_url: null });
    expect(emu.audioOf(stuck)).toBeUndefined();
  });

  test('fail ends a task as Failed with an error message', async () => {
    emu.fault({ kind: 'fail', error: 'Voice model crashed' });
    const id = await submit(emu, KEY);
    await settled(emu, id);
    const answer = await call(emu, `/v2/status?generation_id=${id}`, { key: KEY });
    expect(answer.json).toMatchObject({
      status: 'Failed',
      error: 'Voice model crashed',
      audio_url: null,
    });
  });

  test('media-404 answers 404 once, then the audio', async () => {
    const id = await submit(emu, KEY);
    await settled(emu, id);
    emu.fault({ kind: 'media-404' });
    const url = `${emu.mediaOrigin}/audio/${id}.wav`;
    const first = await fetch(url);
    await first.arrayBuffer();
    expect(first.status).toBe(404);
    const second = await fetch(url);
    expect(second.status).toBe(200);
    expect(Buffer.from(await second.arrayBuffer()).equals(emu.audioOf(id) ?? Buffer.alloc(0))).toBe(
      true,
    );
  });
});

describe('counters and request log', () => {
  test('counts per endpoint and status, and logs each request with its time and user', async () => {
    const before = Date.now();
    await call(emu, '/v2/voices?model=base', { key: KEY });
    await call(emu, '/v2/voices?model=base', { key: 'adx_wrong' });
    await call(emu, '/health');
    expect(emu.counts()).toEqual({
      'GET /v2/voices': { total: 2, byStatus: { 200: 1, 401: 1 } },
      'GET /health': { total: 1, byStatus: { 200: 1 } },
    });
    const log = emu.requests;
    expect(log.map((e) => [e.endpoint, e.status, e.userId])).toEqual([
      ['GET /v2/voices', 200, 'user_1'],
      ['GET /v2/voices', 401, undefined],
      ['GET /health', 200, undefined],
    ]);
    for (const entry of log) {
      expect(entry.at).toBeGreaterThanOrEqual(before - 1);
      expect(entry.doneAt).toBeGreaterThanOrEqual(entry.at);
      expect(JSON.stringify(entry)).not.toContain('adx_');
    }
  });
});

describe('close', () => {
  test('ends pending work and leaves no timers, sockets or processes behind', async () => {
    const script = fileURLToPath(new URL('./fixtures/close-exits.ts', import.meta.url));
    // The child only exits by itself if close() left nothing alive (generation timer: 60 s).
    const { stdout } = await run(process.execPath, [script], { timeout: 20_000 });
    expect(stdout.trim()).toBe('connection closed');
  });

  test('is idempotent', async () => {
    const local = await startEmulator({ synth: 'tone' });
    await Promise.all([local.close(), local.close()]);
    await local.close();
  });
});
