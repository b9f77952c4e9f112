import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { type ChatLine, composeBatch, SHORT_PREFACE } from '../../src/reader/compose.ts';

const line = (
  authorId: string,
  text: string,
  at: number,
  kind: 'said' | 'sent' = 'said',
): ChatLine => ({
  authorId,
  authorName: { b: 'Bobby', c: 'Carol' }[authorId] ?? authorId,
  text,
  kind,
  at,
});
const compose = (lines: ChatLine[], last?: { authorId: string; at: number }, saidPrefix = true) =>
  composeBatch(lines, { saidPrefix, minLength: 30, last }).text;

describe('composeBatch', () => {
  test.each([
    [
      'one message gets the prefix',
      [line('b', 'hello there everyone', 0)],
      undefined,
      'Bobby said hello there everyone.',
    ],
    [
      'the same author within a minute keeps it once',
      [line('b', 'hello there everyone', 0), line('b', 'how is the stream going', 5_000)],
      undefined,
      'Bobby said hello there everyone. how is the stream going.',
    ],
    [
      'a minute later the prefix comes back',
      [line('b', 'hello there everyone', 0), line('b', 'still here, watching', 60_000)],
      undefined,
      'Bobby said hello there everyone. Bobby said still here, watching.',
    ],
    [
      'interleaved authors each say who speaks',
      [line('b', 'first!', 0), line('c', 'second!', 1), line('b', 'third!', 2)],
      undefined,
      'Bobby said first! Carol said second! Bobby said third!',
    ],
    [
      'the previous batch counts',
      [line('b', 'and one more thing to add here', 30_000)],
      { authorId: 'b', at: 0 },
      'and one more thing to add here.',
    ],
    [
      'attachments alone always say who sent them',
      [line('b', 'hello there everyone', 0), line('b', 'an image', 1, 'sent')],
      undefined,
      'Bobby said hello there everyone. Bobby sent an image.',
    ],
  ])('%s', (_, lines, last, spoken) => {
    expect(compose(lines, last)).toBe(spoken);
  });

  test.each([
    [
      'gg alone is prefixed then prefaced',
      [line('b', 'gg', 0)],
      undefined,
      `${SHORT_PREFACE} Bobby said gg.`,
    ],
    [
      'a continuation that is short gets its prefix back',
      [line('b', 'lol same here', 10)],
      { authorId: 'b', at: 0 },
      `${SHORT_PREFACE} Bobby said lol same here.`,
    ],
    [
      'short messages merged are long enough',
      [line('b', 'gg', 0), line('c', 'gg wp', 1), line('b', 'lol', 2)],
      undefined,
      'Bobby said gg. Carol said gg wp. Bobby said lol.',
    ],
  ])('%s', (_, lines, last, spoken) => {
    expect(compose(lines, last)).toBe(spoken);
  });

  test('without the said-prefix setting, only short text and attachments name the author', () => {
    expect(compose([line('b', 'this is a long enough message', 0)], undefined, false)).toBe(
      'this is a long enough message.',
    );
    expect(compose([line('b', 'ok', 0)], undefined, false)).toBe(`${SHORT_PREFACE} Bobby said ok.`);
  });

  test('the last read message is the batch’s last', () => {
    const { last } = composeBatch([line('b', 'x', 1), line('c', 'y', 2)], {
      saidPrefix: true,
      minLength: 30,
      last: undefined,
    });
    expect(last).toEqual({ authorId: 'c', at: 2 });
  });

  test('any non-empty batch reaches the minimum length and keeps every text in order', () => {
    const arbLine = fc.record({
      authorId: fc.constantFrom('b', 'c', 'd'),
      authorName: fc.string({ maxLength: 50 }),
      text: fc.string({ minLength: 1, maxLength: 40 }).filter((t) => t.trim() !== ''),
      kind: fc.constantFrom('said' as const, 'sent' as const),
      at: fc.integer({ min: 0, max: 200_000 }),
    });
    fc.assert(
      fc.property(
        fc.array(arbLine, { minLength: 1, maxLength: 8 }),
        fc.boolean(),
        (lines, saidPrefix) => {
          const { text } = composeBatch(lines, { saidPrefix, minLength: 30, last: undefined });
          expect(text.length).toBeGreaterThanOrEqual(30);
          let from = 0;
          for (const l of lines) {
            const at = text.indexOf(l.text, from);
            expect(at).toBeGreaterThanOrEqual(from);
            from = at + l.text.length;
          }
        },
      ),
    );
  });
});
