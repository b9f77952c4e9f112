import { execFileSync } from 'node:child_process';
import { PassThrough, Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { decodeToPcm, FfmpegProcesses } from '../../src/audio/index.ts';
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

  test('no way to recover: the input fails with the stream’s error, saying why the rest was not heard', async () => {
    const failure = new TtsError('generation_failed', 'the v3 stream failed: overheated', {
      generationId: 'gen-1',
    });
    const why = new TtsError('quota_exhausted', 'no more today');
    const out = playThrough(
      failingAfter(800, failure),
      () => Promise.reject(why),
      new AbortController().signal,
    );
    expect(await drain(out)).toMatchObject({
      name: 'TtsError',
      kind: 'generation_failed',
      generationId: 'gen-1',
      message: 'the v3 stream failed: overheated (its rest not recovered: no more today)',
      cause: why,
    });
  });

  test('the rest failing too ends the item (recovered once, not again), the log saying both', async () => {
    const failure = new TtsError('network', 'the v3 stream failed: cut');
    let asked = 0;
    const out = playThrough(
      failingAfter(1200, failure),
      async () => {
        asked++;
        const rest = new PassThrough();
        rest.write(SPEECH.subarray(0, 2000));
        setImmediate(() => rest.destroy(new Error('ffmpeg decode exited with 1: bad frame')));
        return rest;
      },
      new AbortController().signal,
    );
    const error = await drain(out);
    expect(error).toMatchObject({
      kind: 'network',
      message:
        'the v3 stream failed: cut (its rest not recovered: ffmpeg decode exited with 1: bad frame)',
    });
    expect(asked).toBe(1);
  });

  test('the rest starts on a frame: a sample split by the stream’s chunks is taken whole from the file', async () => {
    // The file's PCM differs from the stream's (another encoding of the same speech): each
    // output byte tells its source. 4-byte frames (f32le mono); the stream cut after 1201 bytes.
    const file = Buffer.from(SPEECH.map((byte) => byte ^ 0xff));
    const out = playThrough(
      failingAfter(1201, new TtsError('network', 'cut')),
      async () => Readable.from([file]),
      new AbortController().signal,
      4,
    );
    const heard = await drain(out);
    expect(heard).toEqual(Buffer.concat([SPEECH.subarray(0, 1200), file.subarray(1200)]));
  });

  test('whatever the chunks and the cut, the splice is on a frame and nothing is lost or doubled', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(1, 2, 4, 8),
        fc.array(fc.integer({ min: 1, max: 700 }), { minLength: 1, maxLength: 8 }),
        async (frameBytes, sizes) => {
          const file = Buffer.from(SPEECH.map((byte) => byte ^ 0xff));
          const pcm = new PassThrough();
          pcm.on('error', () => undefined);
          let at = 0;
          for (const size of sizes) {
            if (at >= SPEECH.length) break;
            pcm.write(SPEECH.subarray(at, Math.min(SPEECH.length, at + size)));
            at += size;
          }
          const sent = Math.min(at, SPEECH.length);
          setImmediate(() => pcm.destroy(new TtsError('network', 'cut')));
          const heard = await drain(
            playThrough(
              pcm,
              async () => Readable.from([file]),
              new AbortController().signal,
              frameBytes,
            ),
          );
          const splice = sent - (sent % frameBytes);
          expect(heard).toEqual(Buffer.concat([SPEECH.subarray(0, splice), file.subarray(splice)]));
        },
      ),
      { numRuns: 60 },
    );
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

  test('the item let go while its rest decodes (a skip): the decoding ffmpeg is killed and the file let go', async () => {
    const processes = new FfmpegProcesses();
    const wav = execFileSync('ffmpeg', [
      ...['-v', 'error', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=1:sample_rate=24000'],
      ...['-f', 'wav', 'pipe:1'],
    ]);
    const file = new Readable({ read: () => undefined });
    file.push(wav.subarray(0, 4096)); // still downloading: ffmpeg waits for the rest
    const decoding = Promise.withResolvers<void>();
    const out = playThrough(
      failingAfter(100, new TtsError('network', 'cut')),
      async (_error, signal) => {
        const pcm = { format: 's16le', sampleRate: 24_000, channels: 1 } as const;
        const rest = decodeToPcm(file, {
          ffmpegPath: 'ffmpeg',
          processes,
          extension: 'wav',
          pcm,
          signal,
        });
        decoding.resolve();
        return rest;
      },
      new AbortController().signal,
      2,
    );
    out.on('error', () => undefined);
    out.resume();
    await decoding.promise;
    expect(processes.pids()).toHaveLength(1);
    out.destroy();
    await new Promise((resolve) => file.once('close', resolve));
    for (let waited = 0; processes.pids().length > 0 && waited < 5000; waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(processes.pids()).toEqual([]);
  });
});
