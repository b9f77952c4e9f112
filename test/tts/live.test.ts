/**
 * The fallback rules of live speech, table-driven over how a stream fails before its first
 * chunk: no generation started → submit; one started and cut off → poll that one (hanging up
 * does not stop it, so it is not paid twice); one the server said failed → submit again.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { STREAM_PCM, TtsError, type TtsErrorKind } from '../../src/tts/index.ts';
import { type LiveDeps, liveSpeech } from '../../src/tts/live.ts';
import { FakeClock } from '../support/fake-clock.ts';

/** Fake dependencies that record what was called; `stream` behaves as `streamDoes` says. */
function fakes(
  streamDoes: (onStarted: (id: string) => Promise<void>) => Promise<unknown>,
  overrides: Partial<LiveDeps> = {},
) {
  const calls: string[] = [];
  const remembered: unknown[] = [];
  const deps: LiveDeps = {
    clock: new FakeClock(1000),
    lookup: async () => undefined,
    stream: async (hooks) => {
      calls.push('stream');
      const onStarted = async (id: string) => {
        await hooks.onStarted?.(id);
      };
      return (await streamDoes(onStarted)) as Awaited<ReturnType<LiveDeps['stream']>>;
    },
    resume: async (generationId) => {
      calls.push(`resume ${generationId}`);
      return { generationId, audioUrl: `http://media/${generationId}.wav` };
    },
    generate: async (options) => {
      calls.push('generate');
      await options.onSubmitted?.('gen_new');
      return { generationId: 'gen_new', audioUrl: 'http://media/gen_new.wav' };
    },
    remember: async (generation) => void remembered.push(generation),
    ...overrides,
  };
  return { deps, calls, remembered };
}

const failing =
  (kind: TtsErrorKind, started?: string) => async (onStarted: (id: string) => Promise<void>) => {
    if (started !== undefined) await onStarted(started);
    throw new TtsError(
      kind,
      `the stream failed (${kind})`,
      started === undefined ? {} : { generationId: started },
    );
  };

/** A stream that started as `gen_1` and handed over `pcm`, its completion left pending. */
const streaming = (pcm: PassThrough) => async (onStarted: (id: string) => Promise<void>) => {
  await onStarted('gen_1');
  const completed = new Promise<string>(() => undefined);
  return { generationId: 'gen_1', format: STREAM_PCM, pcm, completed };
};

describe('liveSpeech: a stream that fails after its first chunk, before it is played', () => {
  test.each<[string, Error, string[], string]>([
    [
      'cut: the same generation is polled for its file, nothing submitted',
      new TtsError('network', 'the v3 stream failed: the connection was cut'),
      ['stream', 'resume gen_1'],
      'http://media/gen_1.wav',
    ],
    [
      'an `error` frame: given back, so submitted again',
      new TtsError('generation_failed', 'the v3 stream failed: the generation failed'),
      ['stream', 'generate'],
      'http://media/gen_new.wav',
    ],
  ])('%s', async (_, error, expected, audioUrl) => {
    const pcm = new PassThrough();
    const { deps, calls } = fakes(streaming(pcm));
    const speech = await liveSpeech({}, deps);
    if (speech.kind !== 'live') throw new Error('expected live speech');
    pcm.on('error', () => undefined);
    pcm.destroy(error);
    expect(await speech.recover(new AbortController().signal)).toMatchObject({ audioUrl });
    expect(calls).toEqual(expected);
  });
});

describe('liveSpeech', () => {
  test('a cached request is served from the cache: no stream', async () => {
    const cached = { generationId: 'gen_old', audioUrl: 'http://media/old.wav', cached: true };
    const { deps, calls } = fakes(failing('network'), { lookup: async () => cached });
    expect(await liveSpeech({}, deps)).toEqual({ kind: 'file', finished: cached });
    expect(calls).toEqual([]);
  });

  test('a stream hands over its PCM; its backup file goes into the cache once completed', async () => {
    const pcm = new PassThrough();
    const { deps, remembered } = fakes(async (onStarted) => {
      await onStarted('gen_1');
      return {
        generationId: 'gen_1',
        format: STREAM_PCM,
        pcm,
        completed: Promise.resolve('http://media/gen_1.wav'),
      };
    });
    const journalled: string[] = [];
    const speech = await liveSpeech({ onSubmitted: (id) => void journalled.push(id) }, deps);
    expect(speech).toMatchObject({ kind: 'live', generationId: 'gen_1', pcm });
    expect(journalled).toEqual(['gen_1']);
    if (speech.kind !== 'live') throw new Error('expected live speech');
    expect(await speech.finished).toEqual({
      generationId: 'gen_1',
      audioUrl: 'http://media/gen_1.wav',
    });
    expect(remembered).toEqual([
      { generationId: 'gen_1', audioUrl: 'http://media/gen_1.wav', submittedAt: 1000 },
    ]);
  });

  test.each<[string, Parameters<typeof fakes>[0], string[]]>([
    ['dropped before `started`: submitted once', failing('network'), ['stream', 'generate']],
    [
      'no answer in time before `started`: submitted once',
      failing('timeout'),
      ['stream', 'generate'],
    ],
    [
      'cut after `started`: that generation is polled, nothing submitted',
      failing('network', 'gen_1'),
      ['stream', 'resume gen_1'],
    ],
    [
      'given up after `started` (no chunk in time): polled',
      failing('timeout', 'gen_1'),
      ['stream', 'resume gen_1'],
    ],
    [
      'an `error` frame after `started`: given back, so submitted again',
      failing('generation_failed', 'gen_1'),
      ['stream', 'generate'],
    ],
    [
      'refused for the rate (our budget said yes): submitted, which waits its turn',
      failing('rate_limited'),
      ['stream', 'generate'],
    ],
  ])('%s', async (_name, streamDoes, expected) => {
    const { deps, calls } = fakes(streamDoes);
    const speech = await liveSpeech({}, deps);
    expect(speech.kind).toBe('file');
    expect(calls).toEqual(expected);
  });

  test('a polled generation that failed after all is submitted again', async () => {
    const { deps, calls } = fakes(failing('network', 'gen_1'), {
      resume: async (id) => {
        calls.push(`resume ${id}`);
        throw new TtsError('generation_failed', 'generation gen_1 failed: Stream interrupted');
      },
    });
    expect(await liveSpeech({}, deps)).toMatchObject({
      kind: 'file',
      finished: { generationId: 'gen_new' },
    });
    expect(calls).toEqual(['stream', 'resume gen_1', 'generate']);
  });

  test.each<TtsErrorKind>([
    'invalid_key',
    'insufficient_balance',
    'plan_required',
    'invalid_voice',
    'bad_request',
    'quota_exhausted',
  ])('%s is what a submit would meet too: no fallback', async (kind) => {
    const { deps, calls } = fakes(failing(kind));
    await expect(liveSpeech({}, deps)).rejects.toMatchObject({ kind });
    expect(calls).toEqual(['stream']);
  });

  test('an abort rejects with its reason, nothing falls back', async () => {
    const controller = new AbortController();
    const { deps, calls } = fakes(async () => {
      controller.abort(new Error('skipped'));
      throw new TtsError('network', 'cut');
    });
    await expect(liveSpeech({ signal: controller.signal }, deps)).rejects.toThrow('skipped');
    expect(calls).toEqual(['stream']);
  });
});
