import { afterEach, describe, expect, test } from 'vitest';
import { type Emulator, startEmulator, USER_ONE, USER_TWO } from '../../tools/emulator/index.ts';
import { call } from './helpers.ts';
import { ended, submitV3 } from './v3-helpers.ts';

const ONE = USER_ONE.apiKey;
const TWO = USER_TWO.apiKey;

describe('GET /v3/history', () => {
  let local: Emulator | undefined;
  afterEach(async () => {
    await local?.close();
    local = undefined;
  });

  test('newest first, paged, filtered by status, and only the caller’s own', async () => {
    local = await startEmulator({ synth: 'tone', generationMs: () => 10, queueMs: 10 });
    const emulator = local;
    emulator.fault({ kind: 'fail' });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await submitV3(emulator, ONE));
    for (const id of ids) await ended(emulator, id);
    await submitV3(emulator, TWO);
    const newestFirst = [...ids].reverse();

    const first = await call(emulator, '/v3/history?limit=2', { key: ONE });
    expect(first.json).toMatchObject({ limit: 2, offset: 0, length: 2 });
    const rows = (first.json as { history: Record<string, unknown>[] }).history;
    expect(rows.map((r) => r.generation_id)).toEqual(newestFirst.slice(0, 2));
    expect(rows[0]).not.toHaveProperty('input_text');
    expect(rows[0]).toMatchObject({ status: 'COMPLETED', voice_name: 'Ethan', tokens: 10 });

    const rest = await call(emulator, '/v3/history?limit=10&offset=2', { key: ONE });
    const restIds = (rest.json as { history: { generation_id: string }[] }).history;
    expect(restIds.map((r) => r.generation_id)).toEqual(newestFirst.slice(2));

    const failed = await call(emulator, '/v3/history?status=FAILED', { key: ONE });
    expect(failed.json).toMatchObject({
      length: 1,
      history: [{ generation_id: ids[0], audio_url: null }],
    });
    expect((await call(emulator, '/v3/history?status=Done', { key: ONE })).status).toBe(422);
    expect((await call(emulator, '/v3/history?limit=101', { key: ONE })).status).toBe(422);
  });
});

describe('expiry after 24 hours', () => {
  let local: Emulator | undefined;
  afterEach(async () => {
    await local?.close();
    local = undefined;
  });

  test('an id answers until 24 h after creation, then 404; history shows it EXPIRED', async () => {
    let now = Date.parse('2026-04-28T10:00:00Z');
    local = await startEmulator({
      synth: 'tone',
      generationMs: () => 10,
      queueMs: 10,
      now: () => now,
    });
    const emulator = local;
    const id = await submitV3(emulator, ONE);
    await ended(emulator, id);
    const audio = `${emulator.mediaOrigin}/audio/${id}.wav`;

    now += 24 * 3_600_000 - 1;
    expect((await call(emulator, `/v3/tts?generation_id=${id}`, { key: ONE })).status).toBe(200);
    now += 1;
    expect(await call(emulator, `/v3/tts?generation_id=${id}`, { key: ONE })).toMatchObject({
      status: 404,
      json: { detail: 'Generation not found' },
    });
    const media = await fetch(audio);
    await media.arrayBuffer();
    expect(media.status).toBe(404);
    const expired = await call(emulator, '/v3/history?status=EXPIRED', { key: ONE });
    expect(expired.json).toMatchObject({
      length: 1,
      history: [{ generation_id: id, status: 'EXPIRED', audio_url: null }],
    });
  });
});
