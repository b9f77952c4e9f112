import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import Keyv from 'keyv';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { KeyvSpeechCacheStore, openKeyv } from '../../src/store/index.ts';
import {
  EMOTIONS,
  SpeechCache,
  type SpeechCacheStore,
  type SpeechRequest,
  speechCacheKey,
  systemClock,
} from '../../src/tts/index.ts';
import { type Emulator, startEmulator, USER_ONE } from '../../tools/emulator/index.ts';
import { api } from '../support/api-under-test.ts';
import { startTestBot, type TestBot } from '../support/bot-harness.ts';
import { FakeClock } from '../support/fake-clock.ts';
import { sentence, TIME_SCALE } from './emulated.ts';

const HOUR = 3_600_000;
const GOLDEN_TEXT = 'Golden key: a request from before the language setting.';
const base: SpeechRequest = { text: sentence(), voiceId: 'am_2riuownnf', model: 'base' };
const advance: SpeechRequest = { ...base, voiceId: 'af_adv_w3n8q1', model: 'advance' };

describe('speechCacheKey', () => {
  test.each<[string, SpeechRequest, SpeechRequest]>([
    ['voice ids are case-insensitive', base, { ...base, voiceId: 'AM_2RIUOWNNF' }],
    ['speed 1 is the default', base, { ...base, speed: 1 }],
    ['base ignores emotion', base, { ...base, emotion: 'happy' }],
    ['base ignores temperature', base, { ...base, temperature: 0.8 }],
  ])('same key: %s', (_, a, b) => {
    expect(speechCacheKey('k1', a)).toBe(speechCacheKey('k1', b));
  });

  test.each<[string, SpeechRequest, SpeechRequest]>([
    ['text', base, { ...base, text: `${base.text}!` }],
    ['voice', base, { ...base, voiceId: 'af_3kbq21leo' }],
    ['model', base, { ...base, model: 'advance' }],
    ['speed', base, { ...base, speed: 1.5 }],
    ['emotion on advance', advance, { ...advance, emotion: 'sad' }],
    ['temperature on advance', advance, { ...advance, temperature: 0.7 }],
    ['language (issue 31)', { ...base, language: 'en' }, { ...base, language: 'fr' }],
    ['a language against none', base, { ...base, language: 'en' }],
  ])('different key: %s', (_, a, b) => {
    expect(speechCacheKey('k1', a)).not.toBe(speechCacheKey('k1', b));
  });

  // Golden keys, computed with speechCacheKey as it was before the language (commit 9d3da48):
  // a request without a language keeps its key, so audio cached before still answers.
  test.each<[string, SpeechRequest, string]>([
    [
      'base with a speed',
      { text: GOLDEN_TEXT, voiceId: 'am_2riuownnf', model: 'base', speed: 1.2 },
      'key-1:6zTb-u9VS2wV8Bz4wSzCrdNU510uA7kSu0x9fRYGo6Q',
    ],
    [
      'advance with emotion, temperature and top_p',
      {
        text: GOLDEN_TEXT,
        voiceId: 'af_adv_w3n8q1',
        model: 'advance',
        emotion: 'happy',
        temperature: 0.7,
        topP: 0.9,
      },
      'key-1:Ov1YfR3OlGaRGRbWcW7BCQJZWFuXTwUOAm8ev4iyFlY',
    ],
  ])('a request without a language keeps its key from before (%s)', (_, request, key) => {
    expect(speechCacheKey('key-1', request)).toBe(key);
  });

  test('keys are per API key and never contain the spoken text', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 30 }), fc.constantFrom(...EMOTIONS), (text, emotion) => {
        const request = { ...advance, text, emotion };
        const key = speechCacheKey('k1', request);
        expect(key).not.toBe(speechCacheKey('k2', request));
        // The key id, then a hash: the text never appears.
        expect(key).toMatch(/^k1:[\w-]{43}$/);
      }),
    );
  });
});

describe('SpeechCache', () => {
  const entry = { generationId: 'base_1', audioUrl: 'http://media/a.wav', submittedAt: 0 };

  function cache(ttlMs: number, store: SpeechCacheStore = new KeyvSpeechCacheStore(new Keyv())) {
    const clock = new FakeClock(0);
    const errors: unknown[] = [];
    return {
      clock,
      errors,
      cache: new SpeechCache({ store, ttlMs, clock, onError: (e) => errors.push(e) }),
    };
  }

  test('reuses an entry until the lifetime after its submission, then not', async () => {
    const { cache: c, clock } = cache(HOUR);
    await c.remember('k', base, entry);
    await clock.advance(HOUR - 1);
    expect(await c.lookup('k', base)).toEqual({
      ...entry,
      submittedAt: undefined,
      expiresAt: HOUR,
    });
    await clock.advance(1);
    expect(await c.lookup('k', base)).toBeUndefined();
  });

  test('0 turns it off: nothing stored, nothing found', async () => {
    const keyv = new Keyv();
    const { cache: c } = cache(0, new KeyvSpeechCacheStore(keyv));
    expect(c.enabled).toBe(false);
    await c.remember('k', base, entry);
    expect(await c.lookup('k', base)).toBeUndefined();
    expect(await keyv.get(`speech:${speechCacheKey('k', base)}`)).toBeUndefined();
  });

  test.each([24 * HOUR, 25 * HOUR, -1])('a lifetime of %d ms is refused', (ttlMs) => {
    expect(() => cache(ttlMs)).toThrow(/below 24 hours/);
  });

  test('a failing store is reported and treated as a miss', async () => {
    const broken: SpeechCacheStore = {
      get: () => Promise.reject(new Error('store down')),
      set: () => Promise.reject(new Error('store down')),
      delete: () => Promise.reject(new Error('store down')),
    };
    const { cache: c, errors } = cache(HOUR, broken);
    await c.remember('k', base, entry);
    expect(await c.lookup('k', base)).toBeUndefined();
    await c.forget('k', base);
    expect(errors).toHaveLength(3);
  });
});

describe(`TtsClient with the cache, against the emulator (${api.version})`, () => {
  let emu: Emulator;
  let dir: string;
  beforeAll(async () => {
    emu = await startEmulator({ synth: 'tone', timeScale: TIME_SCALE, generationMs: () => 30 });
    dir = await mkdtemp(join(tmpdir(), 'speech-cache-'));
  });
  afterAll(async () => {
    await emu.close();
    await rm(dir, { recursive: true, force: true });
  });
  beforeEach(() => emu.reset());

  function client(keyv: Keyv, ttlMs = HOUR) {
    const errors: unknown[] = [];
    const cache = new SpeechCache({
      store: new KeyvSpeechCacheStore(keyv),
      ttlMs,
      clock: systemClock,
      onError: (e) => errors.push(e),
    });
    return { client: api.clients(emu, { cache }).clients.forKey(USER_ONE.apiKey), errors };
  }
  const posts = () => emu.counts()[api.submit]?.total ?? 0;

  test('the same request again reuses the audio: no POST, no status poll, same bytes', async () => {
    const { client: c } = client(new Keyv());
    const first = await c.generate(base);
    const polls = emu.counts()[api.status]?.total;
    const again = await c.generate({ ...base, voiceId: 'AM_2riuownnf', speed: 1 });
    expect(again).toEqual({ ...first, cached: true });
    expect(posts()).toBe(1);
    expect(emu.counts()[api.status]?.total).toBe(polls);
    expect(
      (await c.download(again.audioUrl)).bytes.equals(
        emu.audioOf(first.generationId) ?? Buffer.alloc(0),
      ),
    ).toBe(true);
  });

  test('identical requests at the same time share one POST; each is told the generation id', async () => {
    const { client: c } = client(new Keyv());
    const ids: string[] = [];
    const all = await Promise.all(
      [1, 2, 3].map(() => c.generate(base, { onSubmitted: (id) => void ids.push(id) })),
    );
    expect(posts()).toBe(1);
    expect(new Set(all.map((g) => g.generationId)).size).toBe(1);
    expect(ids).toEqual(Array(3).fill(all[0]?.generationId));
  });

  test('a different speed, voice or text is generated afresh', async () => {
    const { client: c } = client(new Keyv());
    await c.generate(base);
    await c.generate({ ...base, speed: 1.25 });
    await c.generate({ ...base, voiceId: 'af_3kbq21leo' });
    await c.generate({ ...base, text: sentence(61) });
    expect(posts()).toBe(4);
  });

  test('TTS_CACHE_TTL 0: every request is submitted', async () => {
    const { client: c } = client(new Keyv(), 0);
    await c.generate(base);
    expect((await c.generate(base)).cached).toBeUndefined();
    expect(posts()).toBe(2);
  });

  test('an entry past its lifetime is not reused', async () => {
    const { client: c } = client(new Keyv(), 150);
    await c.generate(base);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await c.generate(base)).cached).toBeUndefined();
    expect(posts()).toBe(2);
  });

  test.each(['download', 'stream'] as const)(
    '%s: a cached address answering 404 is dropped and the speech generated afresh',
    async (how) => {
      const { client: c } = client(new Keyv());
      const first = await c.generate(base);
      const cached = await c.generate(base);
      emu.fault({ kind: 'media-404' });
      const bytes =
        how === 'download'
          ? (await c.download(cached.audioUrl)).bytes
          : Buffer.concat(await (await c.stream(cached.audioUrl)).toArray());
      expect(posts()).toBe(2);
      const fresh = await c.generate(base);
      expect(fresh.cached).toBe(true);
      expect(fresh.generationId).not.toBe(first.generationId);
      expect(bytes.equals(emu.audioOf(fresh.generationId) ?? Buffer.alloc(0))).toBe(true);
      expect(posts()).toBe(2);
    },
  );

  test('a 404 on an address that did not come from the cache is reported, not regenerated', async () => {
    const { client: c } = client(new Keyv());
    const first = await c.generate(base);
    emu.fault({ kind: 'media-404' });
    await expect(c.download(first.audioUrl)).rejects.toMatchObject({ kind: 'not_found' });
    expect(posts()).toBe(1);
  });

  test('the cache lives in the store: a restarted bot reuses audio generated before', async () => {
    const url = `sqlite://${join(dir, 'cache.sqlite')}`;
    const before = await openKeyv(url);
    const first = await client(before).client.generate(base);
    await before.disconnect();
    const after = await openKeyv(url);
    expect(await client(after).client.generate(base)).toEqual({ ...first, cached: true });
    expect(posts()).toBe(1);
    await after.disconnect();
  });

  test('a store that fails does not fail the generation', async () => {
    const keyv = await openKeyv(`sqlite://${join(dir, 'closed.sqlite')}`);
    await keyv.disconnect(); // every later read or write throws
    const { client: c, errors } = client(keyv);
    expect((await c.generate(base)).generationId).toMatch(/^(base|gen)_/);
    expect((await c.generate(base)).cached).toBeUndefined();
    expect(errors.length).toBeGreaterThan(0);
  });
});

describe('through the bot (/say with TTS_CACHE_TTL on)', () => {
  let t: TestBot;
  beforeAll(async () => {
    t = await startTestBot({ env: { TTS_CACHE_TTL: '12h' } });
    await t.configureKey(USER_ONE.apiKey);
  });
  afterAll(() => t?.stop());

  test('the same /say twice: one POST /tts, both replies get the same audio', async () => {
    const text = 'Cached speech is reused within the lifetime, without quota.';
    const say = () =>
      t.discord.slash({ user: 'member', name: 'say', options: { text, output: 'file' } });
    const files = [];
    for (const handle of [say(), say()]) {
      await handle.waitFor((e) => e.kind === 'edit' && e.files.length > 0, 20_000);
      files.push(handle.files()[0]?.data);
    }
    expect(t.emulator.counts()[api.submit]?.total).toBe(1);
    expect(files[0]?.equals(files[1] ?? Buffer.alloc(0))).toBe(true);
  });
});
