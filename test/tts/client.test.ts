import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { MemoryBudgetStore } from '../../src/tts/index.ts';
import type { EmulatorOptions } from '../../tools/emulator/index.ts';
import { type Emulator, startEmulator, USER_ONE, USER_TWO } from '../../tools/emulator/index.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { clientsFor, entriesOf, failure, SCALED_LIMITS, sentence, TIME_SCALE } from './emulated.ts';

const fast: EmulatorOptions = { synth: 'tone', timeScale: TIME_SCALE, generationMs: () => 30 };

/** Starts an emulator for one describe block and closes it after. */
function withEmulator(options: EmulatorOptions = {}): () => Emulator {
  let emulator: Emulator | undefined;
  beforeAll(async () => {
    emulator = await startEmulator({ ...fast, ...options });
  });
  afterAll(() => emulator?.close());
  beforeEach(() => emulator?.reset());
  return () => {
    if (emulator === undefined) throw new Error('emulator not started');
    return emulator;
  };
}

const request = { text: sentence(), voiceId: 'am_2riuownnf', model: 'base' } as const;

describe('happy paths, vendor defaults (201, generation_id, audio_url, WAV)', () => {
  const emu = withEmulator();

  test('generate: submit → poll → Completed with the audio address', async () => {
    const client = clientsFor(emu()).clients.forKey(USER_ONE.apiKey);
    const stages: string[] = [];
    const done = await client.generate(request, {
      onProgress: (progress) => stages.push(progress.stage),
    });
    expect(done.generationId).toMatch(/^base_[0-9a-f-]{36}$/);
    expect(done.audioUrl).toBe(`${emu().mediaOrigin}/audio/${done.generationId}.wav`);
    expect(stages).toEqual(['waiting-for-budget', 'generating']);
    expect(emu().counts()['POST /v2/tts']?.byStatus).toEqual({ 201: 1 });
    expect(emu().counts()['GET /v2/status']?.byStatus[200]).toBeGreaterThanOrEqual(1);
    expect(emu().generation(done.generationId)?.status).toBe('Completed');
  });

  test('submit sends text, voice, model, speed and (advance only) emotion', async () => {
    const client = clientsFor(emu()).clients.forKey(USER_ONE.apiKey);
    const id = await client.submit({
      text: sentence(),
      voiceId: 'AF_ADV_W3N8Q1',
      model: 'advance',
      speed: 1.5,
      emotion: 'happy',
    });
    expect(id).toMatch(/^advance_/);
    expect(emu().generation(id)).toMatchObject({ model: 'advance', voiceId: 'af_adv_w3n8q1' });
  });

  test('download: bytes equal the served audio, WAV sniffed from the bytes', async () => {
    const client = clientsFor(emu()).clients.forKey(USER_ONE.apiKey);
    const done = await client.generate(request);
    const audio = await client.download(done.audioUrl);
    expect(Buffer.compare(audio.bytes, emu().audioOf(done.generationId) ?? Buffer.alloc(0))).toBe(
      0,
    );
    expect(audio).toMatchObject({ extension: 'wav', mime: 'audio/wav' });
  });

  test('stream: the same bytes as a stream', async () => {
    const client = clientsFor(emu()).clients.forKey(USER_ONE.apiKey);
    const done = await client.generate(request);
    const chunks: Buffer[] = [];
    for await (const chunk of await client.stream(done.audioUrl)) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).equals(emu().audioOf(done.generationId) ?? Buffer.alloc(0))).toBe(
      true,
    );
  });

  test('voices: presets for both models; a free-plan user sees their clones on advance only', async () => {
    const { clients } = clientsFor(emu());
    const one = clients.forKey(USER_ONE.apiKey);
    const two = clients.forKey(USER_TWO.apiKey);
    const base = await one.voices('base');
    expect(base).toContainEqual({
      voiceId: 'am_2riuownnf',
      name: 'Ethan',
      gender: 'Male',
      accent: 'American',
      free: true,
      description: 'VoiceID: am_2riuownnf',
    });
    expect(base.some((voice) => voice.accent === 'Custom')).toBe(false);
    const advance = await two.voices('advance');
    expect(advance.filter((voice) => voice.accent === 'Custom')).toEqual([
      expect.objectContaining({ voiceId: 'adv_user_clone_abc', free: false }),
      expect.objectContaining({ voiceId: 'adv_user_clone_xyz', free: false }),
    ]);
    expect((await two.voices('base')).some((voice) => voice.accent === 'Custom')).toBe(false);
    expect((await one.voices('advance')).some((voice) => voice.accent === 'Custom')).toBe(false);
  });

  test('voices are cached per key and model; verify() calls the API again', async () => {
    const client = clientsFor(emu()).clients.forKey(USER_ONE.apiKey);
    await client.voices('base');
    await client.voices('base');
    expect(emu().counts()['GET /v2/voices']?.total).toBe(1);
    await client.verify('base');
    expect(emu().counts()['GET /v2/voices']?.total).toBe(2);
  });

  test('a free-plan user may generate with their own clone on advance', async () => {
    const client = clientsFor(emu()).clients.forKey(USER_TWO.apiKey);
    const done = await client.generate({
      text: sentence(),
      voiceId: 'adv_user_clone_abc',
      model: 'advance',
    });
    expect(emu().generation(done.generationId)?.status).toBe('Completed');
  });

  test('health answers true and counts as a health request', async () => {
    const client = clientsFor(emu()).clients.forKey(USER_ONE.apiKey);
    await expect(client.health()).resolves.toBe(true);
    expect(emu().counts()['GET /v2/']?.byStatus).toEqual({ 200: 1 });
  });

  test('forget drops the client of a key; an in-flight call finishes, budgets stay with the key', async () => {
    const { clients } = clientsFor(emu());
    const first = clients.forKey(USER_ONE.apiKey);
    expect(clients.forKey(USER_ONE.apiKey)).toBe(first);
    const inFlight = first.generate(request);
    clients.forget(USER_ONE.apiKey);
    const done = await inFlight;
    expect(emu().generation(done.generationId)?.status).toBe('Completed');
    const second = clients.forKey(USER_ONE.apiKey);
    expect(second).not.toBe(first);
    const [minute] = await second.usage('generate');
    expect(minute?.used).toBe(1);
    // Forgetting a key that has no client, or twice, is harmless.
    clients.forget('adx_never_used_key_0000');
    clients.forget(USER_ONE.apiKey);
    clients.forget(USER_ONE.apiKey);
    expect(clients.forKey(USER_ONE.apiKey)).not.toBe(second);
  });

  test('usage reports what the key has spent', async () => {
    const client = clientsFor(emu()).clients.forKey(USER_ONE.apiKey);
    await client.submit(request);
    const [minute] = await client.usage('generate');
    expect(minute).toMatchObject({ used: 1, limit: { count: 20 } });
  });
});

describe('variants the SDKs accept: 200, `id`, `url`', () => {
  const emu = withEmulator({ submitStatus: 200, idField: 'id', urlField: 'url' });

  test('submit answered 200 with `id`, status with `url`', async () => {
    const client = clientsFor(emu()).clients.forKey(USER_ONE.apiKey);
    const done = await client.generate(request);
    expect(emu().counts()['POST /v2/tts']?.byStatus).toEqual({ 200: 1 });
    expect(done.audioUrl).toBe(`${emu().mediaOrigin}/audio/${done.generationId}.wav`);
    const audio = await client.download(done.audioUrl);
    expect(audio.bytes.equals(emu().audioOf(done.generationId) ?? Buffer.alloc(0))).toBe(true);
  });
});

describe('both id fields and both url fields', () => {
  const emu = withEmulator({ idField: 'both', urlField: 'both' });

  test('generation_id and audio_url are read', async () => {
    const client = clientsFor(emu()).clients.forKey(USER_ONE.apiKey);
    const done = await client.generate(request);
    expect(emu().generation(done.generationId)).toBeDefined();
    expect(done.audioUrl).toContain(done.generationId);
  });
});

describe('MP3 bytes behind a .wav address', () => {
  const emu = withEmulator({ audioFormat: 'mp3' });

  test('the format is decided from the bytes: mp3, audio/mpeg', async (context) => {
    if (emu().audioFormat !== 'mp3') context.skip('ffmpeg is not installed');
    const client = clientsFor(emu()).clients.forKey(USER_ONE.apiKey);
    const done = await client.generate(request);
    expect(done.audioUrl).toMatch(/\.wav$/);
    const audio = await client.download(done.audioUrl);
    expect(audio).toMatchObject({ extension: 'mp3', mime: 'audio/mpeg' });
    expect(audio.bytes.equals(emu().audioOf(done.generationId) ?? Buffer.alloc(0))).toBe(true);
  });
});

describe('media policy', () => {
  const emu = withEmulator();

  test('an address outside the media origins is refused without any request', async () => {
    let fetches = 0;
    const counted: typeof fetch = (input, init) => {
      fetches++;
      return fetch(input, init);
    };
    const client = clientsFor(emu(), { fetch: counted }).clients.forKey(USER_ONE.apiKey);
    const done = await client.generate(request);
    const before = fetches;
    // The API server itself is not a media origin, nor is another host or scheme.
    const foreign = [
      `${emu().origin}/audio/${done.generationId}.wav`,
      `http://169.254.169.254/latest/meta-data`,
      `file:///etc/passwd`,
    ];
    for (const address of foreign) {
      const error = await failure(client.download(address), 'media_refused');
      expect(error.message).toMatch(/refused: not a configured media origin/);
    }
    await failure(client.stream(foreign[0] ?? ''), 'media_refused');
    expect(fetches).toBe(before);
    expect(entriesOf(emu(), 'GET /audio')).toEqual([]);
    expect(emu().counts().other).toBeUndefined();
  });

  test('audio larger than the size cap is refused', async () => {
    const client = clientsFor(emu(), {
      media: { origins: [emu().mediaOrigin], maxBytes: 1000, timeoutMs: 5000 },
    }).clients.forKey(USER_ONE.apiKey);
    const done = await client.generate(request);
    const error = await failure(client.download(done.audioUrl), 'media_refused');
    expect(error.message).toBe('the audio is larger than 1000 bytes');
  });

  test('media 404 → not_found', async () => {
    const client = clientsFor(emu()).clients.forKey(USER_ONE.apiKey);
    const done = await client.generate(request);
    emu().fault({ kind: 'media-404' });
    const error = await failure(client.download(done.audioUrl), 'not_found');
    expect(error).toMatchObject({
      status: 404,
      message: 'the audio could not be downloaded (HTTP 404)',
    });
    // The next download works: the fault was one-shot.
    await expect(client.download(done.audioUrl)).resolves.toMatchObject({ extension: 'wav' });
  });

  test('a media download slower than the media timeout → timeout', async () => {
    const client = clientsFor(emu(), {
      media: { origins: [emu().mediaOrigin], maxBytes: 5_000_000, timeoutMs: 200 },
    }).clients.forKey(USER_ONE.apiKey);
    const done = await client.generate(request);
    emu().fault({ kind: 'delay', endpoint: 'GET /audio', ms: 2000 });
    const error = await failure(client.download(done.audioUrl), 'timeout');
    expect(error.message).toBe('downloading the audio failed (timeout)');
  });
});

describe('what the clients keep in memory', () => {
  const emu = withEmulator();

  const arm500 = (): void =>
    emu().fault({ kind: 'http-error', endpoint: 'GET /v2/voices', status: 500 });
  test.each([
    ['rejected (401)', 'adx_never_seen_key_4242', 'invalid_key', (): void => undefined],
    ['unanswered (500)', USER_TWO.apiKey, 'server_error', arm500],
  ] as const)(
    'a new key whose check fails, %s, leaves no client and no budget log behind',
    async (_name, key, kind, arm) => {
      arm();
      const budgets = new MemoryBudgetStore(SCALED_LIMITS);
      const { clients } = clientsFor(emu(), { budgets, maxRetries: 0 });
      await failure(clients.verify(key), kind);
      expect(clients.size).toBe(0);
      expect(budgets.size).toBe(0);
    },
  );

  test('a new key whose check cannot reach the service leaves nothing behind either', async () => {
    const budgets = new MemoryBudgetStore(SCALED_LIMITS);
    const { clients } = clientsFor(emu(), {
      budgets,
      maxRetries: 0,
      baseUrl: 'http://127.0.0.1:9/v2',
    });
    await failure(clients.verify('adx_never_seen_key_4242'), 'network');
    expect([clients.size, budgets.size]).toEqual([0, 0]);
  });

  test('a key already in use keeps its client and budgets when a later check fails', async () => {
    const budgets = new MemoryBudgetStore(SCALED_LIMITS);
    const { clients } = clientsFor(emu(), { budgets, maxRetries: 0 });
    const inUse = clients.forKey(USER_ONE.apiKey);
    await inUse.voices('base');
    emu().fault({ kind: 'http-error', endpoint: 'GET /v2/voices', status: 500 });
    await failure(clients.verify(USER_ONE.apiKey), 'server_error');
    expect(clients.forKey(USER_ONE.apiKey)).toBe(inUse);
    expect(budgets.size).toBe(1);
  });

  test('clients not asked for within clientIdleMs are dropped, unless a call is under way', async () => {
    const clock = new FakeClock();
    const { clients } = clientsFor(emu(), { clock, clientIdleMs: 60_000 });
    const idle = clients.forKey('adx_idle_key_00000001');
    clients.forKey('adx_idle_key_00000002');
    const working = clients.forKey(USER_ONE.apiKey);
    emu().fault({ kind: 'delay', endpoint: 'GET /v2/voices', ms: 300 });
    const call = working.voices('base');
    await clock.advance(61_000);
    clients.forKey(USER_TWO.apiKey);
    expect(clients.size).toBe(2);
    expect(clients.forKey('adx_idle_key_00000001')).not.toBe(idle);
    await call;
    expect(clients.forKey(USER_ONE.apiKey)).toBe(working);
  });
});
