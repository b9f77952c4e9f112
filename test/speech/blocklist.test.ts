import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { compileBlocklist, STEP_BUDGET } from '../../src/speech/blocklist.ts';
import { letterUnits } from '../../src/speech/blocklist-units.ts';

const WORDS = ['bad', 'ass', 'hell', 'kill', 'anal', 'lol', 'bad word', 'strasse', 'バカ'];
const blocklist = compileBlocklist(WORDS);

describe('compileBlocklist', () => {
  test.each([
    ['case', 'you are BAD', 'you are beep'],
    ['accents', 'so bäd, so bȁd', 'so beep, so beep'],
    ['combining accents', 'so ba\u0301d', 'so beep'],
    ['repeated letters', 'baaaad!!', 'beep!!'],
    ['repeated letters and case', 'BaAaDdd', 'beep'],
    ['dots', 'b.a.d', 'beep'],
    ['dashes and stars', 'b-a*d', 'beep'],
    ['punctuation inside', 'ba.d', 'beep'],
    ['spelled out', 'you are b a d', 'you are beep'],
    ['spelled out with dots and spaces', 'b. a. d.', 'beep.'],
    ['spelled out with a repeat', 'b aa d', 'beep'],
    ['zero-width space', 'b\u200bad', 'beep'],
    ['full-width letters', 'ｂａｄ', 'beep'],
    ['swap 4 → a', 'b4d', 'beep'],
    ['swap @ → a', 'b@d', 'beep'],
    ['swap 5 and $ → s', '4$5', 'beep'],
    ['swap 3 → e, 1 → l', 'h311', 'beep'],
    ['swap 1 → i', 'k1ll', 'beep'],
    ['1 read as l', '1o1', 'beep'],
    ['ß folds to ss', 'Straße', 'beep'],
    ['words written together', 'BADW0RD', 'beep'],
    ['an entry of two words', 'that bad  word', 'that beep'],
    ['Japanese has no spaces', 'お前はバカだ', 'お前はbeepだ'],
    ['every occurrence', 'bad, bad and BAD', 'beep, beep and beep'],
    ['emoji before it keep their place', '😀 bad 😀', '😀 beep 😀'],
    ['in brackets', '(bad)', '(beep)'],
  ])('%s: %j → %j', (_, text, bleeped) => {
    expect(blocklist.bleep(text, 'beep')).toBe(bleeped);
    expect(blocklist.find(text).length).toBeGreaterThan(0);
  });

  test.each([
    ['inside a longer word', 'class assessment'],
    ['at the start of a longer word', 'badge and hello'],
    ['at the end of a longer word', 'skill, shell'],
    ['spaced but not spelled out', 'an al, b ad, ba d'],
    ['letters across words', 'grab a drink'],
    ['a swap that makes no word', 'b3d 4s? no: a5, 70 b3 0r n07'],
    ['l is not i', 'heii'],
    ['fewer letters than the word', 'as he hel'],
    ['other scripts', 'Привет, 你好'],
  ])('near miss, %s: %j is untouched', (_, text) => {
    expect(blocklist.find(text)).toEqual([]);
    expect(blocklist.bleep(text, 'beep')).toBe(text);
  });

  test('spans point at the original text and name the entry', () => {
    expect(blocklist.find('x b.4.d y')).toEqual([{ start: 2, end: 7, word: 'bad' }]);
  });

  test('entries without letters are ignored; an empty list finds nothing', () => {
    expect(compileBlocklist(['', ' ', '!!!', 'bad']).size).toBe(1);
    expect(compileBlocklist([]).find('anything bad')).toEqual([]);
  });

  test('overlapping hits are bleeped once', () => {
    expect(compileBlocklist(['bad', 'bad word']).bleep('a bad word.', '*')).toBe('a *.');
  });
});

const LOOKALIKE: Record<string, readonly string[]> = {
  a: ['4', '@', 'á', 'Ä', 'a\u0301'],
  e: ['3', 'é', 'Ê'],
  i: ['1', 'í', 'Ï'],
  l: ['1', 'L'],
  o: ['0', 'ö', 'Ø'],
  s: ['5', '$', 'S'],
  t: ['7', 'T'],
};

/** A blocked word in plain letters and a disguise made only of the allowed transformations. */
const disguised = fc
  .array(fc.constantFrom(...'abdeilnostuvwxz'), { minLength: 2, maxLength: 8 })
  .chain((letters) =>
    fc.record({
      word: fc.constant(letters.join('')),
      shapes: fc.tuple(
        ...letters.map((letter) =>
          fc.record({
            look: fc.constantFrom(letter, letter.toUpperCase(), ...(LOOKALIKE[letter] ?? [])),
            times: fc.integer({ min: 1, max: 3 }),
            mark: fc.constantFrom('', '.', '-', '*', '_', '\u200b', '..'),
          }),
        ),
      ),
      spelled: fc.boolean(),
    }),
  )
  .map(({ word, shapes, spelled }) => ({
    word,
    text: shapes
      .map(({ look, times, mark }, i) => (i === 0 ? '' : spelled ? ' ' : mark) + look.repeat(times))
      .join(''),
  }));

const filler = fc.string({ maxLength: 12 });

describe('properties', () => {
  test('any blocked word disguised by the allowed transformations is found where it is', () => {
    fc.assert(
      fc.property(disguised, filler, filler, fc.array(filler), (hidden, before, after, others) => {
        const matcher = compileBlocklist([...others, hidden.word]);
        const start = before.length + 1;
        const text = `${before} ${hidden.text} ${after}`;
        const spans = matcher.find(text);
        const end = start + hidden.text.length;
        expect(spans.some((s) => s.start <= start && s.end >= end)).toBe(true);
        expect(matcher.bleep(text, '')).not.toContain(hidden.text);
      }),
    );
  });

  test('a text with none of the blocked words is untouched', () => {
    const noQ = fc.string().filter((t) => !letterUnits(t).some((u) => u.letters.includes('q')));
    const nearMisses = fc
      .array(fc.constantFrom('class', 'assess', 'hello', 'skill', 'badge', 'analysis', 'as'))
      .map((words) => words.join(' '));
    const words = fc.array(fc.string({ minLength: 1, maxLength: 6 }).map((w) => `q${w}`));
    fc.assert(
      fc.property(fc.oneof(noQ, nearMisses), words, (text, blocked) => {
        for (const matcher of [compileBlocklist(blocked), blocklist]) {
          if (matcher === blocklist && !/^[a-z. ]*$/.test(text)) continue;
          expect(matcher.find(text)).toEqual([]);
          expect(matcher.bleep(text, 'beep')).toBe(text);
        }
      }),
    );
  });

  test('matching work is linear in the text: bounded steps per character', () => {
    const tricky = fc.constantFrom(...'aab b.1l$@ \u0301ä');
    fc.assert(
      fc.property(
        fc.array(fc.string({ minLength: 1, maxLength: 10, unit: tricky }), { maxLength: 20 }),
        fc.string({ maxLength: 300, unit: tricky }),
        (words, text) => {
          const matcher = compileBlocklist(words);
          const nodes = 1 + words.reduce((sum, w) => sum + 2 * w.length, 0);
          const meter = { steps: 0 };
          matcher.find(text, meter);
          // One step per code point, and per letter at most 3 alternatives for each partial
          // match, of which there is at most one per trie node and spacing: a bound in the
          // blocklist alone, whatever the text.
          expect(meter.steps).toBeLessThanOrEqual(text.length * (1 + 3 * (3 * nodes + 1)));
        },
      ),
    );
  });

  test.each([
    ['a long run of one letter', ['aaaaaaaab', 'aa'], 'a'],
    ['spelled-out letters', ['a a', 'aba', 'b a b a c'], 'a b '],
    ['ambiguous swaps', ['lil', 'ili', 'i1l1'], '1'],
  ])('%s: doubling the text doubles the work, no more', (_, words, unit) => {
    const matcher = compileBlocklist(words);
    const steps = (n: number) => {
      const meter = { steps: 0 };
      matcher.find(unit.repeat(n), meter);
      return meter.steps;
    };
    for (const n of [1_000, 2_000, 4_000])
      expect(steps(2 * n)).toBeLessThanOrEqual(2 * steps(n) + 100);
    expect(steps(8_000) / (8_000 * unit.length)).toBeLessThan(40);
  });
});

describe('the step budget', () => {
  /** Lists built to be slow, at the settings' limits: 500 entries of 50 letters. */
  const il = fc.sample(
    fc.string({ unit: fc.constantFrom('i', 'l'), minLength: 50, maxLength: 50 }),
    { numRuns: 500, seed: 27 },
  );
  const lookAlikes = fc.sample(
    fc.string({ unit: fc.constantFrom(...'oilease1t0@$'), minLength: 50, maxLength: 50 }),
    { numRuns: 500, seed: 28 },
  );
  const repeated = Array.from({ length: 50 }, (_, i) => 'a'.repeat(i + 1));
  const spelled = il.map((word) => word.slice(0, 25).split('').join(' '));
  const worst = [il, lookAlikes, repeated, spelled].map((words) => compileBlocklist(words));
  const { base, perLetter } = STEP_BUDGET;

  test('whatever the list, matching takes at most a fixed number of steps per character', () => {
    const unit = fc.constantFrom(...'1il1 .a4@$05s3e7t');
    fc.assert(
      fc.property(
        fc.constantFrom(...worst),
        fc.oneof(
          fc.string({ unit, maxLength: 1_000 }),
          fc.nat({ max: 1_000 }).map((n) => '1'.repeat(n)),
        ),
        (matcher, text) => {
          const meter = { steps: 0 };
          matcher.find(text, meter);
          // One step per code point to fold it, and the budget.
          expect(meter.steps).toBeLessThanOrEqual(base + (1 + perLetter) * text.length);
        },
      ),
      { numRuns: 60 },
    );
  });

  test('a text that spends the budget counts as one blocked span over all of it', () => {
    const [matcher] = worst;
    const text = '1'.repeat(1_000);
    expect(matcher?.find(text)).toEqual([
      { start: 0, end: text.length, word: '', tooCostly: true },
    ]);
  });

  test('ordinary lists never come near it, even on texts made to be hard', () => {
    const matcher = compileBlocklist([...WORDS, 'ill', 'lil', 'lilil', 'illegal', 'mississippi']);
    for (const text of [
      '1'.repeat(1_000),
      '1 1 '.repeat(250),
      '1.l.i.'.repeat(150),
      '$5s'.repeat(300),
    ]) {
      const meter = { steps: 0 };
      expect(matcher.find(text, meter).some((span) => span.tooCostly)).toBe(false);
      expect(meter.steps).toBeLessThan((perLetter / 2) * text.length);
    }
  });
});
