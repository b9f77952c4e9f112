import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { LANGUAGES, translatorFor } from '../../src/i18n/index.ts';
import type { ChatLine } from '../../src/reader/compose.ts';
import { crowdPhrases, ENGLISH_CROWD_PHRASES } from '../../src/reader/crowd-phrases.ts';
import { ENGLISH_PHRASES } from '../../src/reader/phrases.ts';
import { chorusText, collapseRepeats, repeatKey } from '../../src/reader/repeats.ts';
import { PHRASES } from './support.ts';

const line = (authorId: string, text: string, kind: ChatLine['kind'] = 'said') => ({
  authorId,
  text,
  kind,
});

describe('repeatKey', () => {
  test.each([
    ['LUL', 'lul'],
    ['lul', 'lul'],
    ['LULLL', 'lul'],
    ['lul!!!', 'lul'],
    ['  L-U-L  ', 'lul'],
    ['lul lul LUL', 'lul'],
    ['Olé', 'ole'],
    ['GG WP', 'g wp'],
    ['gg, wp!', 'g wp'],
    ['W', 'w'],
    ['草草草', '草'],
    ['!!! ???', ''],
    ['', ''],
  ])('%j → %j', (text, key) => {
    expect(repeatKey(text)).toBe(key);
  });

  test('different words stay apart', () => {
    expect(repeatKey('lul')).not.toBe(repeatKey('lol'));
    expect(repeatKey('no way')).not.toBe(repeatKey('way no'));
  });

  test('property: the key is idempotent, and folding case or repeating letters changes nothing', () => {
    fc.assert(
      fc.property(fc.string(), fc.nat(3), (text, times) => {
        const key = repeatKey(text);
        expect(repeatKey(key)).toBe(key);
        expect(repeatKey(text.toUpperCase().toLowerCase())).toBe(repeatKey(text.toLowerCase()));
        const stretched = [...text].map((c) => c.repeat(times + 1)).join('');
        expect(repeatKey(stretched)).toBe(key);
      }),
    );
  });
});

describe('collapseRepeats', () => {
  test('seven chatters saying LUL become one group where the first one was', () => {
    const messages = [
      line('a', 'hi'),
      ...['LUL', 'lul', 'LULLL', 'Lul!', 'lul', 'LUL', 'lul'].map((t, i) => line(`p${i}`, t)),
      line('b', 'what happened'),
    ];
    const groups = collapseRepeats(messages);
    expect(groups.map((g) => [g.key, g.messages.length, g.people])).toEqual([
      ['hi', 1, 1],
      ['lul', 7, 7],
      ['what hapened', 1, 1],
    ]);
    const chorus = groups[1];
    if (chorus === undefined) throw new Error('no chorus');
    expect(chorusText(chorus, ENGLISH_PHRASES, ENGLISH_CROWD_PHRASES)).toBe('7 people said LUL.');
  });

  test('one chatter repeating is one group of one person, read as usual', () => {
    const groups = collapseRepeats([line('a', 'lol'), line('a', 'LOL'), line('b', 'ok')]);
    expect(groups.map((g) => [g.messages.length, g.people])).toEqual([
      [2, 1],
      [1, 1],
    ]);
    const [first] = groups;
    if (first === undefined) throw new Error('no group');
    expect(chorusText(first, ENGLISH_PHRASES, ENGLISH_CROWD_PHRASES)).toBeUndefined();
  });

  test('attachments and messages with nothing to fold are never grouped', () => {
    const groups = collapseRepeats([
      line('a', 'an image', 'sent'),
      line('b', 'an image', 'sent'),
      line('c', '!!!'),
      line('d', '!!!'),
    ]);
    expect(groups).toHaveLength(4);
  });

  test('property: every message is in exactly one group, in order, and a group shares one key', () => {
    const message = fc.record({
      authorId: fc.constantFrom('a', 'b', 'c'),
      text: fc.constantFrom('LUL', 'lul', 'lol', 'gg', 'GG!', '???', ''),
      kind: fc.constantFrom('said' as const, 'sent' as const),
    });
    fc.assert(
      fc.property(fc.array(message), (generated) => {
        const messages = generated.map((m, i) => ({ ...m, i }));
        const groups = collapseRepeats(messages);
        const seen = groups.flatMap((g) => g.messages.map((m) => m.i));
        expect(seen.sort((x, y) => x - y)).toEqual(messages.map((m) => m.i));
        for (const group of groups) {
          const keys = new Set(group.messages.map((m) => repeatKey(m.text)));
          if (group.messages.length > 1) expect([...keys]).toEqual([group.key]);
          const order = group.messages.map((m) => m.i);
          expect(order).toEqual([...order].sort((x, y) => x - y));
          expect(group.people).toBe(new Set(group.messages.map((m) => m.authorId)).size);
        }
        const firsts = groups.map((g) => g.messages[0]?.i ?? -1);
        expect(firsts).toEqual([...firsts].sort((x, y) => x - y));
      }),
    );
  });
});

describe('crowd phrases', () => {
  test.each([
    ['en', '3 people said LUL.', 'beep'],
    ['de', '3 Leute schreiben: LUL.', 'piep'],
    ['fr', '3 personnes ont dit : LUL.', 'bip'],
    ['es-ES', '3 personas dijeron: LUL.', 'pip'],
    ['ja', '3人が同じことを言いました：LUL。', 'ピー'],
  ] as const)(
    '%s: the chorus and the bleep come from its translation file',
    (language, said, bleep) => {
      const crowd = crowdPhrases(translatorFor(language));
      const group = { key: 'lul', messages: [{ text: 'LUL' }], people: 3 };
      expect(chorusText(group, PHRASES[language], crowd)).toBe(said);
      expect(crowd.bleep).toBe(bleep);
    },
  );

  test.each(LANGUAGES)('%s: the chatters’ text is put in as it is', (language) => {
    const text = "{{count}} $& $' $t(reader.speech.link)";
    expect(crowdPhrases(translatorFor(language)).saidByMany(2, text)).toContain(text);
  });
});
