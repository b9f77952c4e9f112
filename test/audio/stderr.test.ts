import { describe, expect, test } from 'vitest';
import { StderrTail } from '../../src/audio/stderr.ts';

describe('StderrTail', () => {
  test.each<[string, string[], number, number, string[]]>([
    ['nothing written', [], 10, 4096, []],
    ['blank lines dropped', ['\n\n  \n'], 10, 4096, []],
    [
      'lines split across chunks',
      ['pipe:0: Inva', 'lid data\nsecond\r\n'],
      10,
      4096,
      ['pipe:0: Invalid data', 'second'],
    ],
    ['only the last lines kept', ['a\nb\nc\nd\n'], 2, 4096, ['c', 'd']],
    [
      'oldest text dropped past the size limit',
      ['x'.repeat(50), '\nlast\n'],
      10,
      8,
      ['xx', 'last'],
    ],
  ])('%s', (_name, chunks, maxLines, maxChars, expected) => {
    const tail = new StderrTail(maxLines, maxChars);
    for (const chunk of chunks) tail.push(Buffer.from(chunk));
    expect(tail.lines()).toEqual(expected);
  });
});
