/**
 * Voice speech streamed live from the emulator's v3 WebSocket, and each fault: a stream that
 * stops mid-way, an `error` frame, a connection dropped before `started`. A stream that fails
 * before its first chunk falls back to submit-and-poll, and no request is paid twice.
 */
import type { Readable } from 'node:stream';
import Keyv from 'keyv';
import { describe, expect, test } from 'vitest';
import { KeyvLearnedTimesStore, KeyvSpeechCacheStore } from '../../src/store/index.ts';
import {
  SpeechCache,
  systemClock,
  type TtsEndpoint,
  TtsError,
  type VoiceSpeech,
} from '../../src/tts/index.ts';
import { USER_ONE, wavToStreamPcm } from '../../tools/emulator/index.ts';
import { entriesOf, failure, sentence, until } from './emulated.ts';
import { v3ClientsFor, withEmulator } from './v3-emulated.ts';

const request = { text: sentence(80), voiceId: 'am_2riuownnf', model: 'base' } as const;

/** Reads a stream to its end, or to the error it fails with. */
async function drain(pcm: Readable): Promise<{ bytes: Buffer; error?: unknown }> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of pcm) chunks.push(chunk as Buffer);
    return { bytes: Buffer.concat(chunks) };
  } catch (error) {
    return { bytes: Buffer.concat(chunks), error };
  }
}

function live(speech: VoiceSpeech): Extract<VoiceSpeech, { kind: 'live' }> {
  if (speech.kind !== 'live') throw new Error('expected live speech');
  return speech;
}

function file(speech: VoiceSpeech): Extract<VoiceSpeech, { kind: 'file' }>['finished'] {
  if (speech.kind !== 'file') throw new Error('expected a file');
  return speech.finished;
}

describe('live v3 speech', () => {
  const emu = withEmulator();

  /** What a generation of `request` costs the account, measured once on a plain submit. */
  async function costOfOne(): Promise<number> {
    const client = v3ClientsFor(emu(), { streaming: false }).clients.forKey(USER_ONE.apiKey);
    const before = emu().balanceOf(USER_ONE.userId) ?? 0;
    await client.generate(request);
    return before - (emu().balanceOf(USER_ONE.userId) ?? 0);
  }

  test('PCM from the first chunk, then the backup file, which the cache keeps', async () => {
    const cache = new SpeechCache({
      store: new KeyvSpeechCacheStore(new Keyv()),
      ttlMs: 60_000,
      clock: systemClock,
      onError: (error) => {
        throw error;
      },
    });
    const client = v3ClientsFor(emu(), { cache }).clients.forKey(USER_ONE.apiKey);
    const journalled: string[] = [];
    const speech = live(
      await client.live(request, { onSubmitted: (id) => void journalled.push(id) }),
    );
    expect(speech.format).toEqual({ format: 'f32le', sampleRate: 24_000, channels: 1 });
    expect(journalled).toEqual([speech.generationId]);
    const { bytes, error } = await drain(speech.pcm);
    expect(error).toBeUndefined();
    const finished = await speech.finished;
    expect(finished.audioUrl).toBe(`${emu().mediaOrigin}/audio/${speech.generationId}.wav`);
    const served = emu().audioOf(speech.generationId) ?? Buffer.alloc(0);
    expect(bytes.equals(wavToStreamPcm(served))).toBe(true);
    expect(emu().v3.generation(speech.generationId)).toMatchObject({
      status: 'COMPLETED',
      via: 'stream',
    });
    expect(emu().counts()['POST /v3/tts']).toBeUndefined();
    // The same speech again: the backup file from the cache, no stream, no submit.
    const again = file(await client.live(request));
    expect(again).toMatchObject({ audioUrl: finished.audioUrl, cached: true });
    // The emulator logs a stream when its socket closes, which may come after the test's reads.
    await until(() => emu().counts()['WS /v3/tts/stream']?.total === 1);
    expect(emu().counts()['POST /v3/tts']).toBeUndefined();
  });

  test('an identical request while one streams joins it: one stream, one charge, its backup file played', async () => {
    const cost = await costOfOne();
    emu().reset();
    const client = v3ClientsFor(emu()).clients.forKey(USER_ONE.apiKey);
    const before = emu().balanceOf(USER_ONE.userId) ?? 0;
    const journalled: string[] = [];
    const onSubmitted = (id: string) => void journalled.push(id);
    const first = live(await client.live(request, { onSubmitted }));
    const second = client.live(request, { onSubmitted });
    await drain(first.pcm);
    const joined = file(await second);
    expect(joined.generationId).toBe(first.generationId);
    expect(joined.cached).toBe(true);
    expect(joined.audioUrl).toBe((await first.finished).audioUrl);
    // Both journalled under the one generation.
    expect(journalled).toEqual([first.generationId, first.generationId]);
    await until(() => emu().counts()['WS /v3/tts/stream']?.total === 1);
    expect(emu().counts()['POST /v3/tts']).toBeUndefined();
    expect(before - (emu().balanceOf(USER_ONE.userId) ?? 0)).toBe(cost);
  });

  test('identical requests at the same moment (before any audio) share one stream too', async () => {
    emu().reset();
    const client = v3ClientsFor(emu()).clients.forKey(USER_ONE.apiKey);
    const journalled: string[] = [];
    const onSubmitted = (id: string) => void journalled.push(id);
    const speeches = await Promise.all([
      client.live(request, { onSubmitted }),
      client.live(request, { onSubmitted }),
      client.live(request, { onSubmitted }),
    ]);
    const [leader, ...joiners] = speeches;
    const streamed = live(leader as VoiceSpeech);
    await drain(streamed.pcm);
    for (const joiner of joiners) expect(file(joiner).generationId).toBe(streamed.generationId);
    expect(journalled).toEqual([
      streamed.generationId,
      streamed.generationId,
      streamed.generationId,
    ]);
    await until(() => emu().counts()['WS /v3/tts/stream']?.total === 1);
    expect(emu().counts()['POST /v3/tts']).toBeUndefined();
  });

  test('a joined stream that fails: the identical request streams its own', async () => {
    const client = v3ClientsFor(emu()).clients.forKey(USER_ONE.apiKey);
    emu().fault({ kind: 'stream-cut', afterChunks: 2 });
    const first = live(await client.live(request));
    const second = client.live(request);
    const { error } = await drain(first.pcm);
    expect(error).toBeDefined();
    const own = await second;
    expect(own.kind === 'live' ? own.generationId : own.finished.generationId).not.toBe(
      first.generationId,
    );
  });

  test('a connection dropped before `started` falls back to submit-and-poll, paid once', async () => {
    const cost = await costOfOne();
    emu().reset();
    const client = v3ClientsFor(emu()).clients.forKey(USER_ONE.apiKey);
    const before = emu().balanceOf(USER_ONE.userId) ?? 0;
    emu().fault({ kind: 'stream-drop' });
    const journalled: string[] = [];
    const done = file(
      await client.live(request, { onSubmitted: (id) => void journalled.push(id) }),
    );
    await until(() => emu().counts()['WS /v3/tts/stream']?.byStatus[0] === 1);
    expect(emu().counts()['POST /v3/tts']?.byStatus).toEqual({ 200: 1 });
    expect(journalled).toEqual([done.generationId]);
    expect(emu().v3.generation(done.generationId)?.status).toBe('COMPLETED');
    expect(before - (emu().balanceOf(USER_ONE.userId) ?? 0)).toBe(cost);
  });

  test('an `error` frame before the first chunk: that generation was given back, one submit follows', async () => {
    const cost = await costOfOne();
    emu().reset();
    const client = v3ClientsFor(emu()).clients.forKey(USER_ONE.apiKey);
    const before = emu().balanceOf(USER_ONE.userId) ?? 0;
    emu().fault({ kind: 'stream-error', afterChunks: 0, message: 'engine overheated' });
    const journalled: string[] = [];
    const done = file(
      await client.live(request, { onSubmitted: (id) => void journalled.push(id) }),
    );
    expect(journalled).toHaveLength(2);
    const [streamed, submitted] = journalled;
    expect(submitted).toBe(done.generationId);
    expect(emu().v3.generation(streamed ?? '')).toMatchObject({ status: 'FAILED', via: 'stream' });
    // The server said it failed: no poll of that id, straight to a submit.
    expect(emu().counts()['POST /v3/tts']?.byStatus).toEqual({ 200: 1 });
    expect(before - (emu().balanceOf(USER_ONE.userId) ?? 0)).toBe(cost);
  });

  test('a stream cut after `started`, before any audio: its id is polled first, never paid twice', async () => {
    const cost = await costOfOne();
    emu().reset();
    const client = v3ClientsFor(emu()).clients.forKey(USER_ONE.apiKey);
    const before = emu().balanceOf(USER_ONE.userId) ?? 0;
    emu().fault({ kind: 'stream-cut', afterChunks: 0 });
    const journalled: string[] = [];
    const done = file(
      await client.live(request, { onSubmitted: (id) => void journalled.push(id) }),
    );
    const [streamed] = journalled;
    const polled = emu()
      .requests.filter((r) => r.endpoint === 'GET /v3/tts')
      .map((r) => r.path);
    expect(polled[0]).toBe(`/v3/tts?generation_id=${streamed}`);
    // The emulator ends a cut generation FAILED and gives it back; then one submit.
    expect(done.generationId).not.toBe(streamed);
    expect(before - (emu().balanceOf(USER_ONE.userId) ?? 0)).toBe(cost);
  });

  test('a stream that stops mid-way fails its PCM with a typed error after the chunks so far', async () => {
    const client = v3ClientsFor(emu()).clients.forKey(USER_ONE.apiKey);
    emu().fault({ kind: 'stream-cut', afterChunks: 2 });
    const speech = live(await client.live(request));
    const { bytes, error } = await drain(speech.pcm);
    expect(bytes.length).toBeGreaterThan(0);
    expect(error).toBeInstanceOf(TtsError);
    expect(error).toMatchObject({ kind: 'network', generationId: speech.generationId });
    await failure(speech.finished, 'network');
  });

  test('an `error` frame mid-way fails the PCM with the service’s words', async () => {
    const client = v3ClientsFor(emu()).clients.forKey(USER_ONE.apiKey);
    emu().fault({ kind: 'stream-error', afterChunks: 2, message: 'engine overheated' });
    const speech = live(await client.live(request));
    const { error } = await drain(speech.pcm);
    expect(error).toMatchObject({ kind: 'generation_failed' });
    expect((error as Error).message).toContain('engine overheated');
  });

  test('each stream is counted once in the metrics, under the status of its upgrade', async () => {
    const streams: number[] = [];
    const metrics = {
      apiRequest: (endpoint: TtsEndpoint, status: number) => {
        if (endpoint === 'stream') streams.push(status);
      },
      noticeLag: () => undefined,
      cacheHit: () => undefined,
    };
    const client = v3ClientsFor(emu(), { metrics }).clients.forKey(USER_ONE.apiKey);
    await drain(live(await client.live(request)).pcm);
    emu().fault({ kind: 'stream-drop' });
    file(await client.live({ ...request, text: sentence(81) }));
    // Both opened: the emulator drops the second after its upgrade (a submit then follows).
    expect(streams).toEqual([101, 101]);
  });

  test('a refusal a submit would share is not retried as one (bad key)', async () => {
    const client = v3ClientsFor(emu()).clients.forKey('adx_not_a_key');
    await failure(client.live(request), 'invalid_key');
    expect(emu().counts()['POST /v3/tts']).toBeUndefined();
  });

  test('an abort hangs up: the item that left stops its stream', async () => {
    const client = v3ClientsFor(emu()).clients.forKey(USER_ONE.apiKey);
    const controller = new AbortController();
    const speech = live(await client.live(request, { signal: controller.signal }));
    controller.abort(new Error('skipped'));
    const { error } = await drain(speech.pcm);
    expect(error).toMatchObject({ message: 'skipped' });
  });

  test('with streaming off, voice speech is submitted and polled', async () => {
    const client = v3ClientsFor(emu(), { streaming: false }).clients.forKey(USER_ONE.apiKey);
    expect(client.streams).toBe(false);
    file(await client.live(request));
    expect(emu().counts()['POST /v3/tts']?.byStatus).toEqual({ 200: 1 });
  });
});

describe('live v3 speech on a service that streams at half the pace of speech', () => {
  // 30 characters of tone: 1.8 s of speech, streamed in 3.6 s; a submitted one is done in 30 ms.
  const emu = withEmulator({ streamSpeed: 0.5 });
  const text = (n: number) => `Item ${n}. ${sentence(40)}`.slice(0, 30);

  test('a cut stream polled to its end teaches nothing: a generation made again is first polled as on a fresh key', async () => {
    const store = new KeyvLearnedTimesStore(new Keyv());
    // The spec's cadence (1–2 s), as in production: its 10 s cap on a first poll is what lets a
    // learned stream's pace show.
    const client = v3ClientsFor(emu(), {
      pollIntervalMs: { min: 1000, max: 2000 },
      learning: { store },
    }).clients.forKey(USER_ONE.apiKey);
    // Cut after three chunks; the generation goes on at the stream's pace, polled to its end.
    emu().fault({ kind: 'stream-cut', afterChunks: 3, completes: true });
    const cut = live(await client.live({ ...request, text: text(1) }));
    expect((await drain(cut.pcm)).error).toMatchObject({ kind: 'network' });
    await cut.recover(new AbortController().signal);
    const streamed = emu().v3.generation(cut.generationId);
    expect(streamed).toMatchObject({ status: 'COMPLETED', via: 'stream' });
    const streamMs = (streamed?.completedAt ?? 0) - (streamed?.createdAt ?? 0);
    // An `error` frame after three chunks: given back, made again as a polled generation.
    emu().fault({ kind: 'stream-error', afterChunks: 3 });
    const failed = live(await client.live({ ...request, text: text(2) }));
    expect((await drain(failed.pcm)).error).toMatchObject({ kind: 'generation_failed' });
    const remade = await failed.recover(new AbortController().signal);
    const submit = entriesOf(emu(), 'POST /v3/tts').at(-1);
    const firstPoll = entriesOf(emu(), 'GET /v3/tts').find((entry) =>
      entry.path.endsWith(`generation_id=${remade.generationId}`),
    );
    // A fresh key probes at a quarter of the prior's 1250 ms for 30 characters (at 312 ms) and
    // polls at the prior's time at the latest; taught the stream's pace, it waited 3.6 s.
    const priorMs = 800 + 15 * 30;
    expect(streamMs).toBeGreaterThan(2 * priorMs);
    expect((firstPoll?.at ?? Number.NaN) - (submit?.doneAt ?? Number.NaN)).toBeLessThan(priorMs);
    await client.saveLearned();
    const learned = await store.load(client.keyId);
    // The one generation submitted here, done in well under the stream's time; not the stream.
    expect(learned?.base?.samples).toHaveLength(1);
    expect(learned?.base?.samples[0]?.[2]).toBeLessThan(priorMs);
  }, 30_000);
});
