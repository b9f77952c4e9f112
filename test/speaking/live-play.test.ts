import { PassThrough, Readable } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { playThrough } from '../../src/speaking/live-play.ts';
import { TtsError } from '../../src/tts/index.ts';

const SPEECH = Buffer.from(Array.from({ length: 4000 }, (_, i) => i % 251));

/** Everything `stream` gives until it ends, or the error it fails with. */
async function drain(stream: Readable): Promise<Buffer | Error> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of stream) chunks.push(chunk as Buffer);
  } catch (error) {
    return error as Error;
  }
  return Buffer.concat(chunks);
}

/** A live stream giving the first `sent` bytes of SPEECH, then failing with `error`. */
function failingAfter(sent: number, error: Error): PassThrough {
  const pcm = new PassThrough();
  pcm.on('error', () => undefined);
  for (let at = 0; at < sent; at += 300) pcm.write(SPEECH.subarray(at, Math.min(sent, at + 300)));
  setImmediate(() => pcm.destroy(error));
  return pcm;
}

describe('playThrough', () => {
  test('a stream that completes passes through unchanged, and nothing is recovered', async () => {
    const pcm = Readable.from([SPEECH.subarray(0, 1000), SPEECH.subarray(1000)]);
    let asked = 0;
    const out = playThrough(
      pcm,
      async () => {
        asked++;
        return Readable.from([]);
      },
      new AbortController().signal,
    );
    expect(await drain(out)).toEqual(SPEECH);
    expect(asked).toBe(0);
  });

  test.each([0, 4, 1200, 3999])(
    'failing mid-way after %i bytes, the rest comes from the whole speech: all of it, once',
    async (sent) => {
      const failure = new TtsError('network', 'the v3 stream failed: cut');
      let told: unknown;
      const out = playThrough(
        failingAfter(sent, failure),
        async (error) => {
          told = error;
          return Readable.from([SPEECH.subarray(0, 7), SPEECH.subarray(7)]);
        },
        new AbortController().signal,
      );
      expect(await drain(out)).toEqual(SPEECH);
      expect(told).toBe(failure);
    },
  );

  test('no way to recover: the input fails with the stream’s own error', async () => {
    const failure = new TtsError('generation_failed', 'the v3 stream failed: overheated');
    const out = playThrough(
      failingAfter(800, failure),
      () => Promise.reject(new TtsError('quota_exhausted', 'no more today')),
      new AbortController().signal,
    );
    expect(await drain(out)).toBe(failure);
  });

  test('a failure that is not the API’s (an abort) is not recovered', async () => {
    const aborted = new Error('aborted');
    let asked = 0;
    const out = playThrough(
      failingAfter(800, aborted),
      async () => {
        asked++;
        return Readable.from([SPEECH]);
      },
      new AbortController().signal,
    );
    expect(await drain(out)).toBe(aborted);
    expect(asked).toBe(0);
  });

  test('the item letting its input go lets the stream go too, and stops a recovery under way', async () => {
    const pcm = new PassThrough();
    const out = playThrough(pcm, async () => Readable.from([SPEECH]), new AbortController().signal);
    out.destroy();
    await new Promise((resolve) => setImmediate(resolve));
    expect(pcm.destroyed).toBe(true);

    const failing = failingAfter(100, new TtsError('network', 'cut'));
    let recovery: AbortSignal | undefined;
    const waiting = Promise.withResolvers<Readable>();
    const second = playThrough(
      failing,
      (_error, signal) => {
        recovery = signal;
        return waiting.promise;
      },
      new AbortController().signal,
    );
    second.resume();
    await new Promise((resolve) => failing.once('close', resolve));
    second.destroy();
    await new Promise((resolve) => setImmediate(resolve));
    expect(recovery?.aborted).toBe(true);
    const rest = Readable.from([SPEECH]);
    waiting.resolve(rest);
    await new Promise((resolve) => setImmediate(resolve));
    expect(rest.destroyed).toBe(true);
  });
});
