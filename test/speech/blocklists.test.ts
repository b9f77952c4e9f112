import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { BLOCKLIST_LIMITS, compileBlocklist } from '../../src/speech/blocklist.ts';
import { BlocklistCache, screenAfter, screenText } from '../../src/speech/blocklists.ts';
import { READER_BOUNDS } from '../../src/store/index.ts';

describe('screenText', () => {
  const matcher = compileBlocklist(['darn', 'bad word']);
  test.each([
    ['a clean line', 'skip', { blocked: false, text: 'a clean line', bleeped: false }],
    ['so d4rn hard', 'skip', { blocked: true }],
    ['so D.A.R.N hard', 'bleep', { blocked: false, text: 'so beep hard', bleeped: true }],
    ['a badword here', 'bleep', { blocked: false, text: 'a beep here', bleeped: true }],
  ] as const)('%j with %s', (text, mode, screened) => {
    expect(screenText(matcher, text, mode, 'beep')).toEqual(screened);
  });

  test('a text too costly to match is not read, even with bleep: there is no word to bleep', () => {
    const hostile = compileBlocklist(
      Array.from({ length: 500 }, (_, i) =>
        i.toString(2).padStart(50, 'l').replaceAll('0', 'i').replaceAll('1', 'l'),
      ),
    );
    expect(screenText(hostile, '1'.repeat(1_000), 'bleep', 'beep')).toEqual({ blocked: true });
  });

  test('property: nothing bleeped still holds a blocked word', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('darn', 'D4RN', 'd a r n', 'hello', ' ', '.', 'bad', 'word'), {
          maxLength: 12,
        }),
        (parts) => {
          const screened = screenText(matcher, parts.join(' '), 'bleep', 'beep');
          if (screened.blocked) throw new Error('bleep never blocks');
          expect(matcher.find(screened.text)).toEqual([]);
        },
      ),
    );
  });
});

describe("screenAfter: a word spelled over one author's messages read in turns of their own", () => {
  const matcher = compileBlocklist(['fuck', 'bad word']);
  test.each([
    ['', 'a clean line', 'bleep', { blocked: false, text: 'a clean line', bleeped: false }],
    ['f. u. c', 'k', 'skip', { blocked: true }],
    ['f. u. c', 'k', 'bleep', { blocked: false, text: 'beep', bleeped: true }],
    ['f', 'u. c. k. and more', 'bleep', { blocked: false, text: 'beep. and more', bleeped: true }],
    ['bad', 'word, I said', 'skip', { blocked: true }],
    ['bad', 'word, I said', 'bleep', { blocked: false, text: 'beep, I said', bleeped: true }],
    // What was screened with its own message is not screened again in the next one.
    ['fuck', 'hello there', 'skip', { blocked: false, text: 'hello there', bleeped: false }],
    ['hello', 'so fuck it', 'bleep', { blocked: false, text: 'so beep it', bleeped: true }],
  ] as const)('%j then %j with %s', (before, text, mode, screened) => {
    expect(screenAfter(matcher, before, text, mode, 'beep')).toEqual(screened);
  });

  test.each([
    // An edit of an older message is screened between what came before it and after it.
    ['f. u', 'c', 'k', 'skip', { blocked: true }],
    ['f. u', 'c', 'k. and more', 'bleep', { blocked: false, text: 'beep', bleeped: true }],
    ['', 'hi f. u. c', 'k', 'bleep', { blocked: false, text: 'hi beep', bleeped: true }],
    // What was screened with its own later message is not screened again.
    ['hello', 'there', 'fuck', 'skip', { blocked: false, text: 'there', bleeped: false }],
  ] as const)('%j, %j, then %j with %s', (before, text, after, mode, screened) => {
    expect(screenAfter(matcher, before, text, mode, 'beep', after)).toEqual(screened);
  });

  test("property: the author's messages, each screened after the ones before, never spell a blocked word together", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('f', 'u', 'c', 'k', 'fu', 'ck', 'bad', 'word', 'hi', '.'), {
          minLength: 1,
          maxLength: 10,
        }),
        (messages) => {
          let said = '';
          for (const message of messages) {
            const screened = screenAfter(matcher, said, message, 'bleep', 'beep');
            if (screened.blocked) throw new Error('bleep never blocks');
            said = said === '' ? screened.text : `${said} ${screened.text}`;
          }
          expect(matcher.find(said)).toEqual([]);
        },
      ),
    );
  });
});

describe('BlocklistCache', () => {
  test('compiles a list once and again when it changes', () => {
    const cache = new BlocklistCache();
    const first = cache.matcher(['darn']);
    expect(cache.matcher(['darn'])).toBe(first);
    expect(cache.matcher(['darn', 'heck'])).not.toBe(first);
  });

  test('the store bounds match the core’s', () => {
    expect(READER_BOUNDS.blockedWords).toBe(BLOCKLIST_LIMITS.words);
    expect(READER_BOUNDS.blockedWordLength).toBe(BLOCKLIST_LIMITS.wordLength);
  });
});
