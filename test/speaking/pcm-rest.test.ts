import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { SkipBytes } from '../../src/speaking/pcm-rest.ts';

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
