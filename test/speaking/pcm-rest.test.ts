import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { frameBytesOf, SkipBytes, WholeFrames } from '../../src/speaking/pcm-rest.ts';

/** Cuts `bytes` at `cuts` (any positions, any order) into consecutive chunks. */
function chunked(bytes: Buffer, cuts: number[]): Buffer[] {
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const edges = [0, ...at, bytes.length];
  return edges.slice(1).map((end, i) => bytes.subarray(edges[i], end));
}

describe('SkipBytes', () => {
  test.each([
    [0, [[1, 2, 3]], [1, 2, 3], 0],
    [2, [[1, 2, 3]], [3], 0],
    [2, [[1], [2, 3], [4]], [3, 4], 0],
    [3, [[1, 2, 3]], [], 0],
    [5, [[1, 2], [3]], [], 2],
  ])('skip %i of %j gives %j (%i left)', (skip, chunks, out, left) => {
    const skipper = new SkipBytes(skip);
    const got = chunks.flatMap((c) => [...skipper.take(Buffer.from(c))]);
    expect(got).toEqual(out);
    expect(skipper.left).toBe(left);
  });

  test('whatever the chunking, the output is the input from the skip on: nothing twice, nothing lost', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 200 }),
        fc.array(fc.nat(), { maxLength: 20 }),
        fc.nat(250),
        (raw, cuts, skip) => {
          const bytes = Buffer.from(raw);
          const skipper = new SkipBytes(skip);
          const out = Buffer.concat(chunked(bytes, cuts).map((c) => skipper.take(c)));
          expect(out.equals(bytes.subarray(Math.min(skip, bytes.length)))).toBe(true);
          expect(skipper.left).toBe(Math.max(0, skip - bytes.length));
        },
      ),
    );
  });

  test('refuses a skip that is not a whole number of bytes', () => {
    expect(() => new SkipBytes(-1)).toThrow(RangeError);
    expect(() => new SkipBytes(1.5)).toThrow(RangeError);
  });
});

describe('WholeFrames', () => {
  test('whatever the chunking, only whole frames pass; the split end waits, the final one is flushed', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 200 }),
        fc.array(fc.nat(), { maxLength: 20 }),
        fc.integer({ min: 1, max: 8 }),
        (raw, cuts, frameBytes) => {
          const bytes = Buffer.from(raw);
          const frames = new WholeFrames(frameBytes);
          let passed = 0;
          const out: Buffer[] = [];
          for (const chunk of chunked(bytes, cuts)) {
            const whole = frames.take(chunk);
            passed += whole.length;
            expect(passed % frameBytes).toBe(0);
            out.push(whole);
          }
          const tail = frames.flush();
          expect(tail.length).toBe(bytes.length % frameBytes);
          expect(Buffer.concat([...out, tail]).equals(bytes)).toBe(true);
        },
      ),
    );
  });

  test.each([
    [{ format: 'f32le', channels: 1 }, 4],
    [{ format: 's16le', channels: 1 }, 2],
    [{ format: 's16le', channels: 2 }, 4],
  ] as const)('a frame of %j is %i bytes', (format, bytes) => {
    expect(frameBytesOf(format)).toBe(bytes);
  });

  test('refuses a frame that is not a whole number of bytes', () => {
    expect(() => new WholeFrames(0)).toThrow(RangeError);
    expect(() => new WholeFrames(2.5)).toThrow(RangeError);
  });
});
