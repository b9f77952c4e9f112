import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { BLOCKLIST_LIMITS, compileBlocklist } from '../../src/speech/blocklist.ts';
import { BlocklistCache, screenText } from '../../src/speech/blocklists.ts';
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
