import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import {
  type Emulator,
  PRESET_VOICES,
  startEmulator,
  USER_ONE,
  USER_POOR,
  USER_TWO,
  type VoiceRecord,
} from '../../tools/emulator/index.ts';
import { call, settled, submit, text } from './helpers.ts';

let emu: Emulator;
const ONE = USER_ONE.apiKey;
const TWO = USER_TWO.apiKey;

beforeAll(async () => {
  emu = await startEmulator({ synth: 'tone', generationMs: () => 30 });
});
afterAll(() => emu.close());
beforeEach(() => emu.reset());

describe('addresses and health', () => {
  test('baseUrl ends in /v2 and the media server is a separate origin', () => {
    expect(emu.baseUrl).toBe(`${emu.origin}/v2`);
    expect(emu.mediaOrigin).not.toBe(emu.origin);
  });

  test.each(['/', '/v2/', '/health'])('health check %s answers 200 without a key', async (path) => {
    const answer = await call(emu, path);
    expect(answer.status).toBe(200);
  });

  test('unknown paths answer 404 with a detail', async () => {
    const answer = await call(emu, '/v2/statuz', { key: ONE });
    expect(answer).toMatchObject({ status: 404, json: { detail: 'Generation not found' } });
  });
});

describe('POST /v2/tts and GET /v2/status', () => {
  test('submits, then reports Generating and Completed with an audio address', async () => {
    emu.fault({ kind: 'never-complete' });
    const stuck = await submit(emu, ONE);
    const pending = await call(emu, `/v2/status?generation_id=${stuck}`, { key: ONE });
    expect(pending.json).toMatchObject({ status: 'Generating', audio_url: null });

    const submitted = await call(emu, '/v2/tts', {
      key: ONE,
      body: { text: text(80), voice: 'AM_2RIUOWNNF', speed: 1.5 },
    });
    expect(submitted.status).toBe(201);
    const id = (submitted.json as { generation_id: string }).generation_id;
    expect(id).toMatch(/^base_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    await settled(emu, id);
    const done = await call(emu, `/v2/status?generation_id=${id}`, { key: ONE });
    expect(done.status).toBe(200);
    expect(done.json).toEqual({
      generation_id: id,
      user_id: 'user_1',
      status: 'Completed',
      text_input: `${text(50)}...`,
      voice_id: 'am_2riuownnf',
      model: 'base',
      audio_url: `${emu.mediaOrigin}/audio/${id}.wav`,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
    });
  });

  test('short texts are shown whole; advance ids start with advance_', async () => {
    const id = await submit(emu, ONE, { text: text(40), model: 'advance', emotion: 'happy' });
    expect(id.startsWith('advance_')).toBe(true);
    const answer = await call(emu, `/v2/status?generation_id=${id}`, { key: ONE });
    expect(answer.json).toMatchObject({ text_input: text(40), model: 'advance' });
  });

  test('status errors: 403 other user, 404 unknown, 400 missing id, 401 bad key', async () => {
    const id = await submit(emu, ONE);
    expect(await call(emu, `/v2/status?generation_id=${id}`, { key: TWO })).toMatchObject({
      status: 403,
      json: { detail: 'Access denied for this generation' },
    });
    expect(await call(emu, '/v2/status?generation_id=base_nope', { key: ONE })).toMatchObject({
      status: 404,
      json: { detail: 'Generation not found' },
    });
    const missing = await call(emu, '/v2/status', { key: ONE });
    expect(missing.status).toBe(400);
    expect(missing.json).toMatchObject({ detail: [{ loc: ['query', 'generation_id'] }] });
    expect(await call(emu, `/v2/status?generation_id=${id}`, { key: 'adx_wrong' })).toMatchObject({
      status: 401,
      json: { detail: 'Invalid API Key' },
    });
  });

  test.each([
    ['/v2/tts', 'POST'],
    ['/v2/status?generation_id=x', 'GET'],
    ['/v2/voices?model=base', 'GET'],
  ])('%s without a key answers 401', async (path, method) => {
    const answer = await call(emu, path, { method, ...(method === 'POST' ? { body: {} } : {}) });
    expect(answer).toMatchObject({ status: 401, json: { detail: 'Invalid API Key' } });
  });
});

describe('POST /v2/tts validation', () => {
  const ok = { text: text(), voice: 'am_2riuownnf' };
  test.each<[string, string, Record<string, unknown>, number, unknown]>([
    [
      'text too short',
      ONE,
      { ...ok, text: 'too short' },
      400,
      { error: 'Text must be at least 30 characters long.' },
    ],
    [
      'text too long',
      ONE,
      { ...ok, text: text(5001) },
      400,
      { error: expect.stringContaining('5000') },
    ],
    ['unknown voice', ONE, { ...ok, voice: 'xx_nope' }, 400, 'Invalid voice ID'],
    [
      "another account's clone",
      ONE,
      { ...ok, model: 'advance', voice: 'adv_user_clone_abc' },
      400,
      'Invalid voice ID',
    ],
    ['a clone on base', TWO, { ...ok, voice: 'adv_user_clone_abc' }, 400, 'Invalid voice ID'],
    [
      'a bad emotion',
      ONE,
      { ...ok, model: 'advance', emotion: 'bored' },
      400,
      expect.stringMatching(/^Invalid Emotion \| Expected: \[/),
    ],
    [
      'a bad temperature',
      ONE,
      { ...ok, model: 'advance', temperature: 0.1 },
      400,
      expect.stringMatching(/^Invalid Temperature/),
    ],
    [
      'a premium voice on the free plan',
      TWO,
      { ...ok, voice: 'am_9wq4n1kzd' },
      403,
      expect.stringMatching(/^This voice is only available for paid plans/),
    ],
  ])('%s', async (_name, key, body, status, detail) => {
    const answer = await call(emu, '/v2/tts', { key, body });
    expect(answer).toEqual({ status, headers: expect.anything(), json: { detail } });
  });

  test.each<[string, Record<string, unknown>, string[]]>([
    ['bad model', { ...ok, model: 'turbo' }, ['model']],
    ['speed too high', { ...ok, speed: 2.5 }, ['speed']],
    ['speed not a number', { ...ok, speed: 'fast' }, ['speed']],
    ['missing text and voice', {}, ['text', 'voice']],
  ])('%s gives a list of field errors', async (_name, body, fields) => {
    const answer = await call(emu, '/v2/tts', { key: ONE, body });
    expect(answer.status).toBe(400);
    const detail = (answer.json as { detail: { loc: string[]; msg: string }[] }).detail;
    expect(detail.map((d) => d.loc)).toEqual(fields.map((f) => ['body', f]));
    for (const d of detail) expect(typeof d.msg).toBe('string');
  });

  test('malformed JSON gives a 400 list', async () => {
    const answer = await call(emu, '/v2/tts', { key: ONE, raw: '{"text": ' });
    expect(answer.status).toBe(400);
    expect(Array.isArray((answer.json as { detail: unknown }).detail)).toBe(true);
  });

  test('emotion is ignored on base; own clone works on advance, even on the free plan', async () => {
    await submit(emu, ONE, { emotion: 'bored' });
    await submit(emu, TWO, { model: 'advance', voice: 'ADV_USER_CLONE_ABC' });
  });
});

describe('billing', () => {
  test('charges 1 credit per character on base and 4 on advance', async () => {
    const before = emu.balanceOf('user_1') ?? 0;
    await submit(emu, ONE, { text: text(100) });
    await submit(emu, ONE, { text: text(100), model: 'advance' });
    expect(emu.balanceOf('user_1')).toBe(before - 100 - 400);
  });

  test('402 Insufficient Balance when credits run short', async () => {
    expect(emu.balanceOf(USER_POOR.userId)).toBe(100);
    const body = { text: text(101), voice: 'am_2riuownnf' };
    expect(await call(emu, '/v2/tts', { key: USER_POOR.apiKey, body })).toMatchObject({
      status: 402,
      json: { detail: 'Insufficient Balance' },
    });
    emu.setBalance(USER_POOR.userId, 1000);
    await submit(emu, USER_POOR.apiKey, { text: text(101) });
    expect(emu.balanceOf(USER_POOR.userId)).toBe(899);
  });
});

describe('GET /v2/voices', () => {
  test.each(['base', 'advance'] as const)('lists about a dozen presets for %s', async (model) => {
    const answer = await call(emu, `/v2/voices?model=${model}`, { key: ONE });
    expect(answer.status).toBe(200);
    const body = answer.json as { user_id: string; model: string; voices: VoiceRecord[] };
    expect(body).toMatchObject({ user_id: 'user_1', model });
    expect(body.voices).toEqual(PRESET_VOICES[model]);
    expect(body.voices.length).toBeGreaterThanOrEqual(10);
    expect(body.voices.some((v) => !v.free)).toBe(true);
    expect(body.voices).toContainEqual({
      voice_id: 'am_2riuownnf',
      name: 'Ethan',
      gender: 'Male',
      accent: 'American',
      free: true,
      description: expect.any(String),
    });
    for (const id of ['af_3kbq21leo', 'bf_jp71qvnzd']) {
      expect(body.voices.find((v) => v.voice_id === id)?.free).toBe(true);
    }
  });

  test('custom voices show only on advance and only to their owner', async () => {
    const customOf = async (key: string, model: string) => {
      const answer = await call(emu, `/v2/voices?model=${model}`, { key });
      return (answer.json as { voices: VoiceRecord[] }).voices.filter((v) => v.accent === 'Custom');
    };
    const own = await customOf(TWO, 'advance');
    expect(own.map((v) => v.voice_id)).toContain('adv_user_clone_abc');
    expect(own.every((v) => v.free === false)).toBe(true);
    expect(await customOf(TWO, 'base')).toEqual([]);
    expect(await customOf(ONE, 'advance')).toEqual([]);
  });

  test.each(['', '?model=turbo'])('model query %j gives 400 with field errors', async (query) => {
    const answer = await call(emu, `/v2/voices${query}`, { key: ONE });
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ detail: [{ loc: ['query', 'model'] }] });
  });
});

describe('vendor revisions', () => {
  test.each([
    ['url', ['url'], ['audio_url']],
    ['both', ['audio_url', 'url'], []],
  ] as const)('urlField %s reports the address under %j', async (urlField, present, absent) => {
    const local = await startEmulator({ synth: 'tone', generationMs: () => 5, urlField });
    try {
      const id = await submit(local, ONE);
      await settled(local, id);
      const json = (await call(local, `/v2/status?generation_id=${id}`, { key: ONE }))
        .json as Record<string, unknown>;
      for (const key of present) expect(json[key]).toBe(`${local.mediaOrigin}/audio/${id}.wav`);
      for (const key of absent) expect(json).not.toHaveProperty(key);
    } finally {
      await local.close();
    }
  });

  test('idField id and submitStatus 200, as the SDKs accept', async () => {
    const local = await startEmulator({ synth: 'tone', idField: 'id', submitStatus: 200 });
    try {
      const answer = await call(local, '/v2/tts', {
        key: ONE,
        body: { text: text(), voice: 'am_2riuownnf' },
      });
      expect(answer.status).toBe(200);
      expect(answer.json).toEqual({ id: expect.stringMatching(/^base_/) });
    } finally {
      await local.close();
    }
  });
});
