import { execFileSync } from 'node:child_process';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import {
  BYTES_PER_SAMPLE,
  type Emulator,
  STREAM_RATE,
  type SynthMode,
  startEmulator,
  USER_ONE,
  USER_TWO,
  wavDurationMs,
} from '../../tools/emulator/index.ts';
import { call, until } from './helpers.ts';
import { audioOf, BASE_VOICE, messagesOf, type StreamRun, stream } from './v3-helpers.ts';

const KEY = USER_ONE.apiKey;
const CHUNK_MS = 100;
const request = {
  text: 'Streaming speech from the emulator, one chunk after another.',
  voice_id: BASE_VOICE,
};
let emu: Emulator;

beforeAll(async () => {
  emu = await startEmulator({ synth: 'tone', streamChunkMs: CHUNK_MS, streamSpeed: 8 });
});
afterAll(() => emu.close());
beforeEach(() => emu.reset());

function hasEspeak(): boolean {
  try {
    execFileSync('espeak-ng', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false; // not installed: the espeak case is skipped
  }
}

function generationOf(run: StreamRun): string {
  if (run.generationId === undefined) throw new Error('no started frame');
  return run.generationId;
}

describe('a stream that completes', () => {
  test('started, then audio chunks while the generation still runs, then completed and close 1000', async () => {
    const run = await stream(emu, KEY, request);
    const kinds = run.frames.map((f) => (f.kind === 'json' ? String(f.message.type) : 'audio'));
    expect(kinds[0]).toBe('started');
    expect(kinds.at(-1)).toBe('completed');
    expect(kinds.slice(1, -1).every((k) => k === 'audio')).toBe(true);
    const chunks = audioOf(run);
    expect(chunks.length).toBeGreaterThan(2);
    const id = generationOf(run);
    expect(messagesOf(run)[0]).toEqual({
      type: 'started',
      generation_id: id,
      channel: `generation:${id}`,
    });
    // Audio is heard before the generation ends: the first chunk came while it was GENERATING.
    const first = run.frames.find((f) => f.kind === 'audio');
    expect(first?.kind === 'audio' && first.statusOnArrival).toBe('GENERATING');
    const full = ((STREAM_RATE * CHUNK_MS) / 1000) * BYTES_PER_SAMPLE;
    expect(chunks.slice(0, -1).every((c) => c.length === full)).toBe(true);
    expect((chunks.at(-1)?.length ?? 0) % BYTES_PER_SAMPLE).toBe(0);
    expect(run.closeCode).toBe(1000);

    const snapshot = emu.v3.generation(id);
    expect(snapshot).toMatchObject({ status: 'COMPLETED', via: 'stream', format: 'wav' });
    expect(snapshot?.transitions).toEqual(['IN_QUEUE', 'GENERATING', 'COMPLETED']);
    const completed = messagesOf(run).at(-1);
    expect(completed).toEqual({
      type: 'completed',
      audio_url: `${emu.mediaOrigin}/audio/${id}.wav`,
    });
    const media = await fetch(String(completed?.audio_url));
    expect(Buffer.from(await media.arrayBuffer()).equals(emu.audioOf(id) ?? Buffer.alloc(0))).toBe(
      true,
    );
  });

  test('the stream is a generation: GET /v3/tts and the history know it, and it is billed', async () => {
    const before = emu.balanceOf(USER_ONE.userId) ?? 0;
    const run = await stream(emu, KEY, request);
    const id = generationOf(run);
    expect((await call(emu, `/v3/tts?generation_id=${id}`, { key: KEY })).json).toMatchObject({
      generation_id: id,
      status: 'COMPLETED',
      input_text: request.text,
    });
    const history = await call(emu, '/v3/history?limit=1', { key: KEY });
    expect(history.json).toMatchObject({ history: [{ generation_id: id }] });
    expect(emu.balanceOf(USER_ONE.userId)).toBe(before - 60);
  });

  test('a client that hangs up after the first chunk does not stop the generation', async () => {
    const run = await stream(emu, KEY, request, {
      onFrame: (frame, socket) => {
        if (frame.kind === 'audio') socket.close(1000);
      },
    });
    const id = generationOf(run);
    await until(() => emu.v3.generation(id)?.status === 'COMPLETED');
  });

  test.each<[SynthMode]>([['tone'], ['espeak']])(
    'with %s audio the PCM is float32 at 24 kHz and as long as the audio file',
    async (synth) => {
      if (synth === 'espeak' && !hasEspeak()) return;
      const local = await startEmulator({ synth, streamChunkMs: CHUNK_MS, streamSpeed: 20 });
      try {
        const run = await stream(local, KEY, request);
        const pcm = Buffer.concat(audioOf(run));
        const wav = local.audioOf(generationOf(run)) ?? Buffer.alloc(0);
        const samples = pcm.length / BYTES_PER_SAMPLE;
        expect(Number.isInteger(samples)).toBe(true);
        // Same duration as the file, to within one 24 kHz sample.
        expect(Math.abs(samples - (wavDurationMs(wav) / 1000) * STREAM_RATE)).toBeLessThanOrEqual(
          1,
        );
        let peak = 0;
        for (let at = 0; at < pcm.length; at += BYTES_PER_SAMPLE)
          peak = Math.max(peak, Math.abs(pcm.readFloatLE(at)));
        expect(peak).toBeGreaterThan(0.01);
        expect(peak).toBeLessThanOrEqual(1);
      } finally {
        await local.close();
      }
    },
  );
});

describe('stream faults', () => {
  afterEach(() => emu.clearFaults());

  test('stream-cut: the connection drops after the given chunks, without completed; the job fails and is refunded', async () => {
    const before = emu.balanceOf(USER_ONE.userId);
    emu.fault({ kind: 'stream-cut', afterChunks: 2 });
    const run = await stream(emu, KEY, request);
    expect(messagesOf(run).map((m) => m.type)).toEqual(['started']);
    expect(audioOf(run)).toHaveLength(2);
    expect(run.closeCode).toBe(1006);
    expect(emu.v3.generation(generationOf(run))).toMatchObject({
      status: 'FAILED',
      errorMessage: 'Stream interrupted',
    });
    expect(emu.balanceOf(USER_ONE.userId)).toBe(before);
    await until(() => emu.counts()['WS /v3/tts/stream']?.byStatus[0] === 1);
  });

  test('stream-cut by default stops half-way', async () => {
    const whole = audioOf(await stream(emu, KEY, request)).length;
    emu.fault({ kind: 'stream-cut' });
    const cut = await stream(emu, KEY, request);
    expect(audioOf(cut)).toHaveLength(Math.floor(whole / 2));
    expect(messagesOf(cut).some((m) => m.type === 'completed')).toBe(false);
  });

  test.each([
    ['stream-cut', 1006],
    ['stream-close', 1000],
  ] as const)(
    '%s with completes: the socket ends without completed; the generation goes on, completes and is charged',
    async (kind, closeCode) => {
      const before = emu.balanceOf(USER_ONE.userId) ?? 0;
      emu.fault({ kind, afterChunks: 2, completes: true });
      const run = await stream(emu, KEY, request);
      expect(messagesOf(run).map((m) => m.type)).toEqual(['started']);
      expect(audioOf(run)).toHaveLength(2);
      expect(run.closeCode).toBe(closeCode);
      const id = generationOf(run);
      await until(() => emu.v3.generation(id)?.status === 'COMPLETED');
      expect(emu.audioOf(id)?.length).toBeGreaterThan(0);
      expect(emu.v3.generation(id)?.deliveredAt).toBeUndefined();
      expect(emu.balanceOf(USER_ONE.userId)).toBeLessThan(before);
    },
  );

  test('stream-close: closes 1000 without completed; the job fails and is refunded', async () => {
    const before = emu.balanceOf(USER_ONE.userId);
    emu.fault({ kind: 'stream-close', afterChunks: 1 });
    const run = await stream(emu, KEY, request);
    expect(messagesOf(run).map((m) => m.type)).toEqual(['started']);
    expect(run.closeCode).toBe(1000);
    expect(emu.v3.generation(generationOf(run))).toMatchObject({ status: 'FAILED' });
    expect(emu.balanceOf(USER_ONE.userId)).toBe(before);
  });

  test('stream-error: an error frame after the given chunks, then close 1011; the job fails and is refunded', async () => {
    const before = emu.balanceOf(USER_ONE.userId);
    emu.fault({ kind: 'stream-error', afterChunks: 1, message: 'Model crashed' });
    const run = await stream(emu, KEY, request);
    const kinds = run.frames.map((f) => (f.kind === 'json' ? String(f.message.type) : 'audio'));
    expect(kinds).toEqual(['started', 'audio', 'error']);
    expect(messagesOf(run)[1]).toEqual({ type: 'error', message: 'Model crashed' });
    expect(run.closeCode).toBe(1011);
    expect(emu.v3.generation(generationOf(run))).toMatchObject({
      status: 'FAILED',
      errorMessage: 'Model crashed',
    });
    expect(emu.balanceOf(USER_ONE.userId)).toBe(before);
  });

  test('stream-drop: the connection drops before started; nothing is created or charged', async () => {
    const before = emu.balanceOf(USER_ONE.userId);
    const history = await call(emu, '/v3/history', { key: KEY });
    emu.fault({ kind: 'stream-drop' });
    const run = await stream(emu, KEY, request);
    expect(run.frames).toEqual([]);
    expect(run.closeCode).toBe(1006);
    expect(emu.balanceOf(USER_ONE.userId)).toBe(before);
    expect((await call(emu, '/v3/history', { key: KEY })).json).toEqual(history.json);
    // One-shot: the next stream completes.
    expect(messagesOf(await stream(emu, KEY, request)).at(-1)).toMatchObject({ type: 'completed' });
  });
});

test('closing the emulator ends a stream in flight', async () => {
  const local = await startEmulator({ synth: 'tone', streamSpeed: 1 });
  let closing: Promise<void> | undefined;
  const run = await stream(local, KEY, request, {
    onFrame: (frame) => {
      if (frame.kind === 'audio') closing ??= local.close();
    },
  });
  await closing;
  expect(messagesOf(run).map((m) => m.type)).toEqual(['started']);
  expect(run.closeCode).toBe(1006);
});

describe('stream refusals', () => {
  test.each<
    [string, string | undefined, Record<string, unknown> | string, number, string | RegExp]
  >([
    ['a wrong key', 'adx_wrong', request, 1008, 'Invalid API Key'],
    ['no key', undefined, request, 1008, 'Invalid API Key'],
    ['invalid JSON', KEY, '{"text":', 1003, 'Invalid JSON payload'],
    ['no voice_id', KEY, { text: 'Hello there.' }, 1003, /^Validation error: voice_id/],
    ['a base voice on advanced', KEY, { ...request, model: 'advanced' }, 1003, /not compatible/],
    [
      'a premium voice on the free plan',
      USER_TWO.apiKey,
      { ...request, voice_id: 'am_9wq4n1kzd' },
      1008,
      /active plan/,
    ],
  ])(
    '%s: one error frame, no started, then the close code',
    async (_, key, body, code, message) => {
      const run = await stream(emu, key, body);
      expect(messagesOf(run)).toEqual([{ type: 'error', message: expect.stringMatching(message) }]);
      expect(run.closeCode).toBe(code);
    },
  );

  test('the key in the stream address never reaches the request log', async () => {
    await stream(emu, KEY, request);
    // The server logs a socket when it has closed on its side, which may be after the client saw it.
    const mine = () =>
      emu.requests.filter((e) => e.endpoint === 'WS /v3/tts/stream' && e.userId === 'user_1');
    await until(() => mine().length === 1);
    const [entry] = mine();
    expect(entry).toMatchObject({ status: 101, closeCode: 1000 });
    expect(entry?.path).toBe('/v3/tts/stream?api_key=<redacted>');
    expect(JSON.stringify(emu.requests)).not.toContain(KEY);
  });
});
