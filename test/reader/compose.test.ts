import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { LANGUAGES } from '../../src/i18n/index.ts';
import { SAID_GLUE_CHARS } from '../../src/reader/backlog.ts';
import { type ChatLine, compactGlueChars, composeBatch } from '../../src/reader/compose.ts';
import { ENGLISH_PHRASES } from '../../src/reader/phrases.ts';
import { cleanMessage } from '../../src/reader/text.ts';
import { expectSpeakable, messageText, PHRASES } from './support.ts';

const SHORT_PREFACE = ENGLISH_PHRASES.preface;

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
const compose = (
  lines: ChatLine[],
  last?: { authorId: string; at: number },
  saidPrefix = true,
  phrases = ENGLISH_PHRASES,
) => composeBatch(lines, { saidPrefix, minLength: 30, last, phrases }).text;

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

  test('a forward and a poll always say who posted them (issue 30), with or without said-prefix', () => {
    const forwarded: ChatLine = { ...line('b', 'hello from elsewhere', 0), kind: 'forwarded' };
    const asked: ChatLine = {
      ...line('b', 'Pizza tonight? Options: yes and no', 1),
      kind: 'asked',
    };
    for (const saidPrefix of [true, false])
      expect(compose([forwarded, asked], undefined, saidPrefix)).toBe(
        'Bobby forwarded: hello from elsewhere. Bobby asked: Pizza tonight? Options: yes and no.',
      );
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
      phrases: ENGLISH_PHRASES,
    });
    expect(last).toEqual({ authorId: 'c', at: 2 });
  });

  test.each([
    [
      'de',
      [line('b', 'hallo an alle hier im Stream', 0)],
      undefined,
      'Bobby schreibt: hallo an alle hier im Stream.',
    ],
    [
      'de',
      [line('b', 'schaut mal her', 0), line('b', 'was geht', 1), line('c', 'ein Bild', 2, 'sent')],
      undefined,
      'Bobby schreibt: schaut mal her. was geht. Carol schickt ein Bild.',
    ],
    ['de', [line('b', 'gg', 0)], undefined, 'Hier kommt, was im Chat steht. Bobby schreibt: gg.'],
    [
      'de',
      [line('b', 'noch was', 10)],
      { authorId: 'b', at: 0 },
      'Hier kommt, was im Chat steht. Bobby schreibt: noch was.',
    ],
    [
      'fr',
      [line('b', 'salut tout le monde ici', 0)],
      undefined,
      'Bobby a dit : salut tout le monde ici.',
    ],
    [
      'fr',
      [line('b', 'une image', 0, 'sent')],
      undefined,
      'Voici ce qui se dit dans le tchat. Bobby a envoyé une image.',
    ],
    [
      'es-ES',
      [line('b', 'hola a todos los del stream', 0), line('c', '¡vamos!', 1)],
      undefined,
      'Bobby dijo: hola a todos los del stream. Carol dijo: ¡vamos!',
    ],
    ['es-ES', [line('b', 'gg', 0)], undefined, 'Esto es lo que dice el chat. Bobby dijo: gg.'],
    [
      'ja',
      [line('b', 'みなさんこんばんは、今日の配信もすごく楽しみにしていました', 0)],
      undefined,
      'Bobbyさん：みなさんこんばんは、今日の配信もすごく楽しみにしていました。',
    ],
    [
      'ja',
      [line('b', 'こんばんは', 0), line('b', 'よろしく！', 1), line('c', '画像1枚', 2, 'sent')],
      undefined,
      'Bobbyさん：こんばんは。 よろしく！ Carolさんが画像1枚を送りました。',
    ],
    [
      'ja',
      [line('b', '草', 0)],
      undefined,
      'ここからは、チャットに届いたメッセージを読み上げます。 Bobbyさん：草。',
    ],
  ] as const)('%s: %j after %j → %j', (language, lines, last, spoken) => {
    expect(compose([...lines], last, true, PHRASES[language])).toBe(spoken);
  });

  test.each([
    [
      'the author in the short form',
      [line('b', 'hello there everyone, good evening', 0)],
      undefined,
      'Bobby, hello there everyone, good evening.',
    ],
    [
      'the same author within a minute is named once',
      [line('b', 'hello there everyone', 0), line('b', 'how is the stream going', 5_000)],
      undefined,
      'Bobby, hello there everyone. how is the stream going.',
    ],
    [
      'interleaved authors are each named',
      [line('b', 'first!', 0), line('c', 'second!', 1), line('b', 'third!', 2)],
      undefined,
      'Bobby, first! Carol, second! Bobby, third!',
    ],
    [
      'attachments, /me actions and choruses read as in the full form',
      [
        line('b', 'an image', 0, 'sent'),
        { ...line('c', 'waves at everyone', 1), kind: 'did' as const },
        { ...line('b', '7 people said LUL.', 2), crowd: true },
      ],
      undefined,
      'Bobby sent an image. Carol waves at everyone. 7 people said LUL.',
    ],
    ['short text is prefaced', [line('b', 'gg', 0)], undefined, `${SHORT_PREFACE} Bobby, gg.`],
  ])('compact: %s', (_, lines, last, spoken) => {
    const options = { saidPrefix: true, minLength: 30, last, phrases: ENGLISH_PHRASES };
    expect(composeBatch(lines, { ...options, compact: true }).text).toBe(spoken);
  });

  test.each(LANGUAGES)('%s: the compact form is shorter, and its glue counted so', (language) => {
    const phrases = PHRASES[language];
    const lines = [line('b', 'hello there, how are you all', 0), line('c', 'fine thanks', 1)];
    const options = { saidPrefix: true, minLength: 0, last: undefined, phrases };
    const full = composeBatch(lines, options).text;
    const compact = composeBatch(lines, { ...options, compact: true }).text;
    expect(compact.length).toBeLessThan(full.length);
    expect(compact).toContain('Bobby');
    expect(compact).toContain('hello there, how are you all');
    const glue = compactGlueChars(phrases);
    expect(glue).toBeLessThan(SAID_GLUE_CHARS);
    expect(glue).toBeGreaterThan(0);
  });

  test('English: the compact glue counts 4 characters where "said" counts 8', () => {
    expect(compactGlueChars(ENGLISH_PHRASES)).toBe(4);
    expect(SAID_GLUE_CHARS).toBe(8);
  });

  test.each(LANGUAGES)('%s: a speaker without a speakable name is still named', (language) => {
    const phrases = PHRASES[language];
    const text = compose(
      [{ ...line('b', 'hello there, how are you all', 0), authorName: '***' }],
      undefined,
      true,
      phrases,
    );
    expect(text).toContain(phrases.said(phrases.unknownAuthor, ''));
  });

  test('any non-empty batch in any language reaches the minimum length and keeps every text in order', () => {
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
        fc.constantFrom(...LANGUAGES),
        fc.boolean(),
        (lines, saidPrefix, language, compact) => {
          const phrases = PHRASES[language];
          const { text } = composeBatch(lines, {
            saidPrefix,
            compact,
            minLength: 30,
            last: undefined,
            phrases,
          });
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

  test('cleaned chat of any language composes into speakable text of at least the minimum length', () => {
    const names = { user: () => '<@1> **Bob**', role: () => undefined, channel: () => undefined };
    const arbMessage = fc.record({
      authorId: fc.constantFrom('b', 'c'),
      authorName: messageText,
      content: messageText,
      files: fc.array(fc.constantFrom('x.png', 'y.mp4', 'z.bin'), { maxLength: 2 }),
      at: fc.integer({ min: 0, max: 200_000 }),
    });
    fc.assert(
      fc.property(
        fc.constantFrom(...LANGUAGES),
        fc.array(arbMessage, { minLength: 1, maxLength: 6 }),
        fc.boolean(),
        (language, messages, saidPrefix) => {
          const phrases = PHRASES[language];
          const lines = messages.flatMap((m): ChatLine[] => {
            const spoken = cleanMessage(
              {
                content: m.content,
                attachments: m.files.map((name) => ({ name, contentType: null })),
                stickers: [],
              },
              names,
              { emoji: 'names', spoilers: 'skip', maxLength: 200 },
              phrases,
            );
            return spoken.text === '' ? [] : [{ ...m, ...spoken }];
          });
          fc.pre(lines.length > 0);
          const { text } = composeBatch(lines, {
            saidPrefix,
            minLength: 30,
            last: undefined,
            phrases,
          });
          expect(text.length).toBeGreaterThanOrEqual(30);
          expectSpeakable(text);
        },
      ),
      { numRuns: 1000 },
    );
  });
});
