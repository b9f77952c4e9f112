import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import {
  type Emulator,
  type Fault,
  INVALID_KEY,
  PLAN_REFUSAL,
  startEmulator,
  USER_ONE,
  USER_POOR,
  USER_TWO,
  V3_SYSTEM_VOICES,
  type V3Status,
} from '../../tools/emulator/index.ts';
import { call, until } from './helpers.ts';
import { ADVANCED_VOICE, BASE_VOICE, ended, submitV3 } from './v3-helpers.ts';

const ONE = USER_ONE.apiKey;
const hasFfmpeg = (() => {
  try {
    execFileSync('ffmpeg', ['-version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false; // not installed: mp3 requests are served as WAV
  }
})();
const TWO = USER_TWO.apiKey;
const ORDER: readonly V3Status[] = ['IN_QUEUE', 'GENERATING', 'COMPLETED', 'FAILED'];
let emu: Emulator;

beforeAll(async () => {
  emu = await startEmulator({ synth: 'tone', generationMs: () => 40, queueMs: 40 });
});
afterAll(() => emu.close());
beforeEach(() => emu.reset());

describe('status flow', () => {
  test.each<[string, Fault | undefined, V3Status[]]>([
    ['completes', undefined, ['IN_QUEUE', 'GENERATING', 'COMPLETED']],
    ['fails', { kind: 'fail', error: 'Voice model crashed' }, ['IN_QUEUE', 'GENERATING', 'FAILED']],
  ])('a job that %s goes through %j, and polls never see it go back', async (_, fault, path) => {
    if (fault) emu.fault(fault);
    const submitted = await call(emu, '/v3/tts', {
      key: ONE,
      body: { text: 'Hello from the version three emulator.', voice_id: BASE_VOICE },
    });
    expect(submitted.status).toBe(200);
    expect(submitted.json).toMatchObject({ status: 'IN_QUEUE', audio_url: null, method: null });
    const id = (submitted.json as { generation_id: string }).generation_id;
    expect(id).toMatch(/^gen_[0-9a-f]+$/);
    const seen: V3Status[] = [];
    let last: Record<string, unknown> = {};
    while (!['COMPLETED', 'FAILED'].includes(String(last.status))) {
      const polled = await call(emu, `/v3/tts?generation_id=${id}`, { key: ONE });
      last = polled.json as Record<string, unknown>;
      seen.push(last.status as V3Status);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(emu.v3.generation(id)?.transitions).toEqual(path);
    const indexes = seen.map((s) => ORDER.indexOf(s));
    expect(indexes).toEqual([...indexes].sort((a, b) => a - b));
    expect(seen.at(-1)).toBe(path.at(-1));
    if (path.at(-1) === 'COMPLETED') {
      expect(last).toMatchObject({ method: 'CREDITS_BALANCE', error_message: null });
      expect(last.audio_url).toBe(`${emu.mediaOrigin}/audio/${id}.wav`);
      const media = await fetch(String(last.audio_url));
      expect(
        Buffer.from(await media.arrayBuffer()).equals(emu.audioOf(id) ?? Buffer.alloc(0)),
      ).toBe(true);
    } else {
      expect(last).toMatchObject({ audio_url: null, error_message: 'Voice model crashed' });
    }
    for (const field of ['created_at', 'started_at', 'completed_at'])
      expect(last[field]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  test('never-complete keeps a job GENERATING while later ones complete', async () => {
    emu.fault({ kind: 'never-complete' });
    const stuck = await submitV3(emu, ONE);
    const normal = await submitV3(emu, ONE);
    await ended(emu, normal);
    await until(() => emu.v3.generation(stuck)?.status === 'GENERATING');
    expect((await call(emu, `/v3/tts?generation_id=${stuck}`, { key: ONE })).json).toMatchObject({
      status: 'GENERATING',
      audio_url: null,
    });
  });

  test('a one-character text is accepted and billed as 30 characters (8 tokens)', async () => {
    const answer = await call(emu, '/v3/tts', {
      key: ONE,
      body: { text: 'A', voice_id: BASE_VOICE },
    });
    expect(answer).toMatchObject({ status: 200, json: { tokens: 8, input_text: 'A' } });
    const long = await call(emu, '/v3/tts', {
      key: ONE,
      body: { text: 'x'.repeat(100), voice_id: ADVANCED_VOICE, model: 'advanced' },
    });
    expect(long.json).toMatchObject({ tokens: 25, model: 'advanced', voice_name: 'Aria' });
  });

  test('audio_format mp3 is served as MP3 at a .mp3 address (WAV bytes without ffmpeg)', async () => {
    const id = await submitV3(emu, ONE, { audio_format: 'mp3' });
    await ended(emu, id);
    const done = await call(emu, `/v3/tts?generation_id=${id}`, { key: ONE });
    expect(done.json).toMatchObject({ audio_url: `${emu.mediaOrigin}/audio/${id}.mp3` });
    const media = await fetch(`${emu.mediaOrigin}/audio/${id}.mp3`);
    const bytes = Buffer.from(await media.arrayBuffer());
    expect(media.headers.get('content-type')).toBe('audio/mpeg');
    const mp3 =
      bytes.toString('latin1', 0, 3) === 'ID3' ||
      (bytes[0] === 0xff && ((bytes[1] ?? 0) & 0xe0) === 0xe0);
    expect(mp3 || bytes.toString('ascii', 0, 4) === 'RIFF').toBe(true);
    if (hasFfmpeg) expect(mp3).toBe(true);
  });

  test('a failed job gives its credits back; a completed one keeps them', async () => {
    const before = emu.balanceOf(USER_ONE.userId) ?? 0;
    emu.fault({ kind: 'fail' });
    await ended(emu, await submitV3(emu, ONE, { text: 'x'.repeat(40) }));
    expect(emu.balanceOf(USER_ONE.userId)).toBe(before);
    await ended(emu, await submitV3(emu, ONE, { text: 'x'.repeat(40) }));
    expect(emu.balanceOf(USER_ONE.userId)).toBe(before - 40);
  });
});

test('a generation records the language_code asked for, in its record and the request log', async () => {
  const body = { text: 'Hello from the version three emulator.', voice_id: BASE_VOICE };
  const asked = await call(emu, '/v3/tts', { key: ONE, body: { ...body, language_code: 'j' } });
  const plain = await call(emu, '/v3/tts', { key: ONE, body });
  const idOf = (answer: { json: unknown }) =>
    (answer.json as { generation_id: string }).generation_id;
  expect(emu.v3.generation(idOf(asked))?.languageCode).toBe('j');
  expect(emu.v3.generation(idOf(plain))).not.toHaveProperty('languageCode');
  await until(() => emu.requests.filter((r) => r.endpoint === 'POST /v3/tts').length >= 2);
  const logged = emu.requests.filter((r) => r.endpoint === 'POST /v3/tts').slice(-2);
  expect(logged.map((r) => r.languageCode)).toEqual(['j', undefined]);
});

describe('errors', () => {
  const ok = { text: 'Hello from the version three emulator.', voice_id: BASE_VOICE };
  test.each<[string, string, Record<string, unknown>, number, unknown]>([
    ['missing text', ONE, { voice_id: BASE_VOICE }, 400, { errors: [{ field: 'text' }] }],
    ['blank text', ONE, { ...ok, text: '  ' }, 400, { errors: [{ field: 'text' }] }],
    ['missing voice_id', ONE, { text: ok.text }, 400, { errors: [{ field: 'voice_id' }] }],
    ['v2 model name', ONE, { ...ok, model: 'advance' }, 400, { errors: [{ field: 'model' }] }],
    ['speed out of range', ONE, { ...ok, speed: 2.5 }, 400, { errors: [{ field: 'speed' }] }],
    [
      'cfg_weight out of range',
      ONE,
      { ...ok, cfg_weight: 6 },
      400,
      { errors: [{ field: 'cfg_weight' }] },
    ],
    [
      'unknown audio_format',
      ONE,
      { ...ok, audio_format: 'ogg' },
      400,
      { errors: [{ field: 'audio_format' }] },
    ],
    [
      'advanced language on base',
      ONE,
      { ...ok, language_code: 'en' },
      400,
      { errors: [{ field: 'language_code' }] },
    ],
    ['unknown voice', ONE, { ...ok, voice_id: 'nobody' }, 400, { detail: 'Voice not found' }],
    [
      'base voice on advanced',
      ONE,
      { ...ok, model: 'advanced' },
      400,
      { detail: expect.stringContaining('not compatible') },
    ],
    [
      'premium voice on the free plan',
      TWO,
      { ...ok, voice_id: 'am_9wq4n1kzd' },
      403,
      { detail: PLAN_REFUSAL },
    ],
    [
      'balance too small',
      USER_POOR.apiKey,
      { ...ok, text: 'x'.repeat(400) },
      402,
      { detail: expect.stringMatching(/^Insufficient balance\. Cost: \$/) },
    ],
    ['wrong key', 'adx_wrong', ok, 401, { detail: INVALID_KEY }],
  ])('POST /v3/tts with %s answers %#', async (_, key, body, status, json) => {
    const answer = await call(emu, '/v3/tts', { key, body });
    expect(answer.status).toBe(status);
    expect(answer.json).toMatchObject(json as object);
    if (status === 400 && 'errors' in (json as object))
      expect(answer.json).toMatchObject({ detail: 'Validation error' });
  });

  test('invalid JSON is a 400 validation error; no key is a 401 without limit headers', async () => {
    expect(await call(emu, '/v3/tts', { key: ONE, raw: '{"text": ' })).toMatchObject({
      status: 400,
      json: { detail: 'Validation error', errors: [{ field: 'body' }] },
    });
    const anonymous = await call(emu, '/v3/voices');
    expect(anonymous).toMatchObject({ status: 401, json: { detail: INVALID_KEY } });
    expect(anonymous.headers.get('x-ratelimit-limit')).toBeNull();
  });

  test.each<[string, string, number, unknown]>([
    ['no id', '/v3/tts', 422, { detail: 'Validation error', errors: [{ field: 'generation_id' }] }],
    ['an unknown id', '/v3/tts?generation_id=gen_nope', 404, { detail: 'Generation not found' }],
    ['an unknown path', '/v3/statuz', 404, { detail: 'Not Found' }],
  ])('GET with %s answers %i', async (_, path, status, json) => {
    expect(await call(emu, path, { key: ONE })).toMatchObject({ status, json });
  });

  test("another account's id is 404, as an unknown one (v2 said 403)", async () => {
    const id = await submitV3(emu, ONE);
    expect(await call(emu, `/v3/tts?generation_id=${id}`, { key: TWO })).toMatchObject({
      status: 404,
      json: { detail: 'Generation not found' },
    });
  });

  test('Authorization: Bearer is accepted as well as x-api-key; a wrong method is 405', async () => {
    const res = await fetch(`${emu.v3.baseUrl}/voices?limit=1`, {
      headers: { authorization: `Bearer ${ONE}` },
    });
    expect(res.status).toBe(200);
    await res.text();
    expect((await call(emu, '/v3/voices', { key: ONE, method: 'DELETE' })).status).toBe(405);
  });
});

describe('GET /v3/voices', () => {
  type VoicePage = {
    limit: number;
    offset: number;
    length: number;
    voices: { voice_id: string; model: string; is_custom: boolean }[];
  };

  async function allPages(key: string, query: string, limit: number): Promise<VoicePage[]> {
    const pages: VoicePage[] = [];
    for (let offset = 0; ; offset += limit) {
      const answer = await call(emu, `/v3/voices?limit=${limit}&offset=${offset}${query}`, { key });
      expect(answer.status).toBe(200);
      const page = answer.json as VoicePage;
      pages.push(page);
      if (page.length < limit) return pages;
    }
  }

  test.each<[string, string, string, number]>([
    ['everything, paid user', ONE, '', V3_SYSTEM_VOICES.length],
    ['everything, user with clones', TWO, '', V3_SYSTEM_VOICES.length + 2],
    ['base only', ONE, '&model=base', V3_SYSTEM_VOICES.filter((v) => v.model === 'base').length],
    [
      'advanced with clones',
      TWO,
      '&model=advanced',
      V3_SYSTEM_VOICES.filter((v) => v.model === 'advanced').length + 2,
    ],
  ])('paging through %s gives each voice once (%s)', async (_, key, query, total) => {
    const pages = await allPages(key, query, 5);
    const ids = pages.flatMap((p) => p.voices.map((v) => v.voice_id));
    expect(ids).toHaveLength(total);
    expect(new Set(ids).size).toBe(total);
    for (const [i, page] of pages.entries()) {
      expect(page).toMatchObject({ limit: 5, offset: i * 5, length: page.voices.length });
      expect(page).not.toHaveProperty('total');
    }
    const model = /model=(\w+)/.exec(query)?.[1];
    for (const voice of pages.flatMap((p) => p.voices)) {
      expect(['base', 'advanced']).toContain(voice.model);
      if (model) expect(voice.model).toBe(model);
      if (voice.is_custom) expect(voice.model).toBe('advanced');
    }
  });

  test('the default page is 100; gender and accent are not API filters and are ignored', async () => {
    const plain = await call(emu, '/v3/voices', { key: ONE });
    expect(plain.json).toMatchObject({ limit: 100, offset: 0, length: V3_SYSTEM_VOICES.length });
    const filtered = await call(emu, '/v3/voices?gender=Female&accent=British', { key: ONE });
    expect(filtered.json).toEqual(plain.json);
  });

  test.each(['limit=0', 'limit=501', 'offset=-1', 'limit=ten', 'model=advance'])(
    '%s is a 422 validation error',
    async (query) => {
      const answer = await call(emu, `/v3/voices?${query}`, { key: ONE });
      expect(answer).toMatchObject({ status: 422, json: { detail: 'Validation error' } });
    },
  );
});
