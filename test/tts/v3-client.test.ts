/** The TTS client speaking v3 to the emulator: the same seam and errors as v2, v3's budgets. */
import { describe, expect, test } from 'vitest';
import { MemoryBudgetStore, parseLimits, V3_DEFAULT_LIMITS } from '../../src/tts/index.ts';
import { USER_ONE, USER_POOR, USER_TWO } from '../../tools/emulator/index.ts';
import { customVoice } from '../../tools/emulator/voices.ts';
import { count429, entriesOf, failure, sentence } from './emulated.ts';
import { v3ClientsFor, withEmulator } from './v3-emulated.ts';

const base = { text: sentence(), voiceId: 'am_2riuownnf', model: 'base' } as const;
const advanced = { text: sentence(), voiceId: 'af_adv_w3n8q1', model: 'advance' } as const;

describe('v3 through the client seam', () => {
  const emu = withEmulator();

  test('generate: POST /v3/tts, polled to COMPLETED, audio from the media server', async () => {
    const client = v3ClientsFor(emu(), { streaming: false }).clients.forKey(USER_ONE.apiKey);
    const stages: string[] = [];
    const done = await client.generate(base, { onProgress: (p) => stages.push(p.stage) });
    expect(done.generationId).toMatch(/^gen_/);
    expect(done.audioUrl).toBe(`${emu().mediaOrigin}/audio/${done.generationId}.wav`);
    expect(stages).toEqual(['waiting-for-budget', 'generating']);
    expect(emu().counts()['POST /v3/tts']?.byStatus).toEqual({ 200: 1 });
    expect(emu().v3.generation(done.generationId)).toMatchObject({
      status: 'COMPLETED',
      via: 'http',
      model: 'base',
      format: 'wav',
    });
    const audio = await client.download(done.audioUrl);
    expect(audio.extension).toBe('wav');
  });

  test('`advance` is sent as `advanced`; speed only on base, emotions left out', async () => {
    const client = v3ClientsFor(emu(), { streaming: false }).clients.forKey(USER_ONE.apiKey);
    const id = await client.submit({ ...advanced, speed: 1.5, emotion: 'happy' });
    expect(emu().v3.generation(id)).toMatchObject({ model: 'advanced', voiceId: 'af_adv_w3n8q1' });
    const fast = await client.submit({ ...base, speed: 1.5 });
    expect(emu().v3.generation(fast)).toMatchObject({ model: 'base' });
  });

  test('voices: per model, in v3 pages until a short one; clones read as accent Custom', async () => {
    const client = v3ClientsFor(emu()).clients.forKey(USER_TWO.apiKey);
    const baseVoices = await client.voices('base');
    expect(baseVoices.map((v) => v.voiceId)).toContain('am_2riuownnf');
    const advancedVoices = await client.voices('advance');
    expect(advancedVoices.map((v) => v.voiceId)).toContain('af_adv_w3n8q1');
    expect(advancedVoices.map((v) => v.voiceId)).not.toContain('am_2riuownnf');
    expect(advancedVoices.find((v) => v.voiceId === 'adv_user_clone_abc')).toMatchObject({
      accent: 'Custom',
      name: 'My Custom Voice',
    });
    const paths = entriesOf(emu(), 'GET /v3/voices').map((entry) => entry.path);
    expect(paths).toEqual([
      '/v3/voices?model=base&limit=500&offset=0',
      '/v3/voices?model=advanced&limit=500&offset=0',
    ]);
  });

  test('errors are typed by cause as with v2', async () => {
    const { clients } = v3ClientsFor(emu(), { streaming: false });
    await failure(clients.forKey('adx_not_a_key').generate(base), 'invalid_key');
    emu().setBalance(USER_POOR.userId, 10);
    await failure(clients.forKey(USER_POOR.apiKey).generate(base), 'insufficient_balance');
    const one = clients.forKey(USER_ONE.apiKey);
    await failure(one.generate({ ...advanced, voiceId: 'am_2riuownnf' }), 'invalid_voice');
    await failure(one.generate({ ...base, voiceId: 'no_such_voice' }), 'invalid_voice');
    // A free plan may not use a paid voice: v3's 403, the plan refusal.
    const free = clients.forKey(USER_TWO.apiKey);
    await failure(free.generate({ ...base, voiceId: 'am_9wq4n1kzd' }), 'plan_required');
    // Another account's id is "not found" in v3.
    const mine = await one.submit(base);
    await failure(
      free.resume({ learn: true, generationId: mine, request: base, submittedAt: Date.now() }),
      'not_found',
    );
    emu().fault({ kind: 'fail', error: 'engine overheated' });
    const failed = await failure(one.generate(base), 'generation_failed');
    expect(failed.message).toContain('engine overheated');
  });
});

describe('v3 budgets', () => {
  const emu = withEmulator({ v3Limits: { free: { perMinute: 120, concurrent: 3 } } });

  test('more generations than the concurrent cap: they wait for slots, 0 × 429', async () => {
    const client = v3ClientsFor(emu(), { streaming: false, concurrentJobs: 3 }).clients.forKey(
      USER_TWO.apiKey,
    );
    const texts = Array.from({ length: 8 }, (_, i) => `${sentence(40)} number ${i}`);
    const done = await Promise.all(texts.map((text) => client.generate({ ...base, text })));
    expect(new Set(done.map((d) => d.generationId)).size).toBe(8);
    expect(count429(emu())).toBe(0);
  });

  test('usage counts every v3 call of the key in its one allowance', async () => {
    const budgets = new MemoryBudgetStore(parseLimits('request=120/1m', V3_DEFAULT_LIMITS));
    const client = v3ClientsFor(emu(), { streaming: false, budgets }).clients.forKey(
      USER_ONE.apiKey,
    );
    await client.generate(base);
    const [usage] = await client.usage('request');
    const calls = emu().requests.filter((r) => r.path.startsWith('/v3/')).length;
    expect(usage?.used).toBe(calls);
    expect(await client.usage('generate')).toEqual([]);
  });
});

describe('v3 voices over more than one page', () => {
  const many = Array.from({ length: 520 }, (_, i) => customVoice(`clone_${i}`, `Clone ${i}`));
  const emu = withEmulator({ users: [{ ...USER_ONE, customVoices: many }] });

  test('the list is read page by page until a short page', async () => {
    const client = v3ClientsFor(emu()).clients.forKey(USER_ONE.apiKey);
    const voices = await client.voices('advance');
    expect(voices.length).toBeGreaterThan(520);
    expect(entriesOf(emu(), 'GET /v3/voices').map((e) => e.path)).toEqual([
      '/v3/voices?model=advanced&limit=500&offset=0',
      '/v3/voices?model=advanced&limit=500&offset=500',
    ]);
  });
});

describe('v3 allowance from the headers', () => {
  const emu = withEmulator({ v3Limits: { free: { perMinute: 20, concurrent: 5 } } });

  test('the allowance the headers tell is followed when it is below the configured one', async () => {
    const client = v3ClientsFor(emu(), {
      streaming: false,
      // The client believes in far more than the server allows (20 per scaled minute).
      limits: parseLimits('request=1000/600ms', V3_DEFAULT_LIMITS),
    }).clients.forKey(USER_TWO.apiKey);
    await client.voices('base');
    const calls = Array.from({ length: 40 }, (_, i) =>
      client.resume({
        learn: true,
        generationId: `gen_unknown_${i}`,
        request: base,
        submittedAt: Date.now(),
      }),
    );
    const outcomes = await Promise.allSettled(calls);
    expect(outcomes.every((o) => o.status === 'rejected')).toBe(true);
    expect(count429(emu())).toBe(0);
  });
});
