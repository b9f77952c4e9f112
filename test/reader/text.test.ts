import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { LANGUAGES } from '../../src/i18n/index.ts';
import { ENGLISH_PHRASES as EN } from '../../src/reader/phrases.ts';
import { type CleanupOptions, cleanMessage, finalPass, truncate } from '../../src/reader/text.ts';
import { expectSpeakable, messageText, PHRASES } from './support.ts';

const names = {
  user: (id: string) =>
    ({ '1': 'Bobby', '4': 'https://evil.example/**x**', '5': 'ht\u200btps://evil.example' })[id],
  role: (id: string) => ({ '2': 'Mods' })[id],
  channel: (id: string) => ({ '3': 'general' })[id],
};
const options: CleanupOptions = { emoji: 'names', spoilers: 'skip', maxLength: 300 };
const say = (content: string, extra: Partial<CleanupOptions> = {}, phrases = EN) =>
  cleanMessage({ content, attachments: [], stickers: [] }, names, { ...options, ...extra }, phrases)
    .text;

describe('cleanMessage', () => {
  test.each([
    ['hi <@1> and <@!1>', 'hi Bobby and Bobby'],
    ['ping <@&2> in <#3>', 'ping Mods in general'],
    ['unknown <@9> <@&9> <#9>', 'unknown someone a role a channel'],
    ['nice <:party_parrot:123> <a:dance:456>', 'nice party parrot dance'],
    ['watch https://www.youtube.com/watch?v=x now', 'watch a link to youtube.com now'],
    ['see <https://example.org/a>', 'see a link to example.org'],
    ['go to www.twitch.tv/someone', 'go to a link to twitch.tv'],
    ['[my clip](https://clips.twitch.tv/abc) lol', 'my clip, a link to clips.twitch.tv lol'],
    ['look ```js\nconst x = 1;\n``` done', 'look a code block. done'],
    ['unclosed ```rm -rf', 'unclosed a code block.'],
    ['run `npm test` please', 'run npm test please'],
    ['the end is ||he dies|| wow', 'the end is wow'],
    ['**bold** *it* __under__ ~~gone~~', 'bold it under gone'],
    ['> quoted\n# Title\n- item', 'quoted. Title. item'],
    ['-# small print', 'small print'],
    ['loooooooool', 'loool'],
    ['!!!!!!!!!!', '!!!'],
    ['hahahahahahahaha', 'hahaha'],
    ['gg gg gg gg gg gg', 'gg gg gg'],
    ['1000000 viewers', '1000000 viewers'],
    ['@everyone and @here look', 'everyone and here look'],
    ['gg 🔥🔥🔥', 'gg fire'],
    ['I ❤️ this 👍🏽', 'I red heart this thumbs up'],
    ['what 🫠', 'what emoji'],
    ['line one\nline two', 'line one. line two'],
    ['use </say:123> now', 'use say now'],
    ['snake_case_name', 'snake case name'],
    ['hey <@1>, look <#3>!', 'hey Bobby, look general!'],
    // Invisible format characters (\p{Cf}) hide nothing from the rules.
    ['watch ht\u200btps://evil.example/x now', 'watch a link to evil.example now'],
    ['watch https\u2060://evil.example/x now', 'watch a link to evil.example now'],
    ['go to w\u200bww.twitch.tv/someone', 'go to a link to twitch.tv'],
    ['lo\u200boo\u200boo\u200boo\u200bool', 'loool'],
    ['gg \u200bgg gg\u200b gg gg', 'gg gg gg'],
    ['\u202ehello\u202c \u00adworld', 'hello world'],
    ['hot ❤️\u200d🔥', 'hot red heart'],
  ])('%j → %j', (input, spoken) => {
    expect(say(input)).toBe(spoken);
  });

  test.each([
    ['the end is ||he dies||', { spoilers: 'read' as const }, 'the end is he dies'],
    ['gg 🔥 <:pog:1>', { emoji: 'drop' as const }, 'gg'],
  ])('%j with %j → %j', (input, extra, spoken) => {
    expect(say(input, extra)).toBe(spoken);
  });

  test.each([
    [[{ name: 'cat.png', contentType: 'image/png' }], [], 'an image'],
    [
      [
        { name: 'a.png', contentType: null },
        { name: 'b.jpg', contentType: null },
      ],
      [],
      '2 images',
    ],
    [
      [{ name: 'notes.pdf', contentType: 'application/pdf' }],
      ['wave'],
      'a file and a sticker: wave',
    ],
    [[], ['Wave', 'Hi there'], '2 stickers: Wave and Hi there'],
    [[], ['<@1> **x**'], 'a sticker: 1 x'],
    [[{ name: 'clip.mp4', contentType: 'video/mp4' }], [], 'a video'],
  ])('attachments %j and stickers %j are %j', (attachments, stickers, spoken) => {
    const alone = cleanMessage({ content: '', attachments, stickers }, names, options, EN);
    expect(alone).toEqual({ text: spoken, kind: 'sent' });
    const withText = cleanMessage(
      { content: 'look at this.', attachments, stickers },
      names,
      options,
      EN,
    );
    expect(withText).toEqual({ text: `look at this, with ${spoken}`, kind: 'said' });
  });

  test('a name that looks like a link or markdown is spoken clean', () => {
    expect(say('hey <@4>')).toBe('hey a link to evil.example');
    expect(say('hey <@5>')).toBe('hey a link to evil.example');
  });

  test('a dictionary replacement goes through the same cleanup', () => {
    const spoken = cleanMessage(
      { content: 'lol ok', attachments: [], stickers: [] },
      names,
      options,
      EN,
      [{ word: 'LOL', replacement: '**laughing** <@1> http://x.example' }],
    ).text;
    expect(spoken).toBe('laughing 1 a link to x.example ok');
  });

  test('a message that is only a spoiler or dropped emoji has nothing to say', () => {
    expect(say('||secret||')).toBe('');
    expect(say('🔥', { emoji: 'drop' })).toBe('');
  });
});

describe('cleanMessage cuts long input before any work', () => {
  const long = (words: number) => Array.from({ length: words }, (_, i) => `word${i}`).join(' ');

  test('a message far over max-length is cut at a word and said to be cut', () => {
    const spoken = say(long(1000), { maxLength: 100 });
    expect(spoken.length).toBeLessThanOrEqual(100);
    expect(spoken).toMatch(/^word0 word1 .* word\d+ and more$/);
  });

  test('a message whose markup shortens it under max-length is read in full, as before', () => {
    const links = Array.from({ length: 2 }, (_, i) => `https://example.org/${'x'.repeat(60)}${i}`);
    const content = `look ${links.join(' ')} ok`;
    expect(content.length).toBeGreaterThan(150);
    expect(say(content, { maxLength: 100 })).toBe(
      'look a link to example.org a link to example.org ok',
    );
  });

  test('what is cut off is said to be, even when the rest is short (a long code block)', () => {
    const spoken = say(`see \`\`\`${'x = 1\n'.repeat(200)}\`\`\` and tell me`, { maxLength: 100 });
    expect(spoken).toBe('see a code block and more');
  });

  test('a spoiler whose end was cut off stays hidden', () => {
    const spoken = say(`the end: ||${'he dies '.repeat(100)}||`, { maxLength: 100 });
    expect(spoken).not.toContain('dies');
    expect(spoken).toBe('the end and more');
  });

  test('the cut goes not through a mention when there is no space to cut at', () => {
    const spoken = say(`${'a'.repeat(195)}<@1>`, { maxLength: 100 });
    expect(spoken).not.toMatch(/\d/);
    expect(spoken).toMatch(/and more$/);
  });

  test('the dictionary cannot lengthen the spoken text past max-length', () => {
    const { text } = cleanMessage(
      {
        content: 'u '.repeat(100),
        attachments: [{ name: 'a.png', contentType: null }],
        stickers: [],
      },
      names,
      { ...options, maxLength: 120 },
      EN,
      [{ word: 'u', replacement: 'a long replacement word' }],
    );
    expect(text.length).toBeLessThanOrEqual(120);
    expect(text).toMatch(/^a long replacement word a long .* and more$/);
  });
});

describe('cleanMessage in the server’s language', () => {
  const image = { name: 'cat.png', contentType: 'image/png' };
  const png = { name: 'b.png', contentType: null };
  const pdf = { name: 'notes.pdf', contentType: 'application/pdf' };
  test.each([
    ['de', 'watch https://www.youtube.com/watch?v=x now', 'watch ein Link zu youtube.com now'],
    ['fr', 'watch https://www.youtube.com/watch?v=x now', 'watch un lien vers youtube.com now'],
    ['es-ES', 'watch https://www.youtube.com/watch?v=x now', 'watch un enlace a youtube.com now'],
    ['ja', 'watch https://www.youtube.com/watch?v=x now', 'watch youtube.comへのリンク now'],
    ['de', 'see http://localhost/x', 'see ein Link'],
    ['fr', '[clip](https://clips.twitch.tv/a) lol', 'clip, un lien vers clips.twitch.tv lol'],
    ['ja', 'see http://localhost/x', 'see リンク'],
    ['de', 'unknown <@9> <@&9> <#9>', 'unknown jemand eine Rolle ein Kanal'],
    ['fr', 'unknown <@9> <@&9> <#9>', 'unknown quelqu’un un rôle un salon'],
    ['es-ES', 'unknown <@9> <@&9> <#9>', 'unknown alguien un rol un canal'],
    ['ja', 'unknown <@9> <@&9> <#9>', 'unknown 誰か ロール チャンネル'],
    ['de', 'look ```js\nx\n``` done', 'look ein Codeblock. done'],
    ['ja', 'look ```js\nx\n``` done', 'look コードブロック。 done'],
    ['de', 'at <t:1700000000:F>', 'at 14. November 2023 um 22:13'],
    ['ja', 'at <t:1700000000:F>', 'at 2023年11月14日 22:13'],
    ['ja', 'line one\nline two', 'line one。 line two'],
  ] as const)('%s: %j → %j', (language, input, spoken) => {
    expect(say(input, {}, PHRASES[language])).toBe(spoken);
  });

  test.each([
    ['en', [image], [], 'an image', 'look, with an image'],
    ['de', [image], [], 'ein Bild', 'look, dazu ein Bild'],
    ['de', [image, png], [], '2 Bilder', 'look, dazu 2 Bilder'],
    [
      'de',
      [pdf],
      ['wave'],
      'eine Datei und einen Sticker: wave',
      'look, dazu eine Datei und einen Sticker: wave',
    ],
    ['fr', [image], [], 'une image', 'look, avec une image'],
    [
      'fr',
      [pdf],
      ['wave'],
      'un fichier et un autocollant : wave',
      'look, avec un fichier et un autocollant : wave',
    ],
    ['es-ES', [image, png], [], '2 imágenes', 'look, con 2 imágenes'],
    [
      'es-ES',
      [pdf],
      ['wave'],
      'un archivo y una pegatina: wave',
      'look, con un archivo y una pegatina: wave',
    ],
    ['ja', [image], [], '画像1枚', 'look、画像1枚付き'],
    [
      'ja',
      [pdf],
      ['wave'],
      'ファイル1件、スタンプ「wave」',
      'look、ファイル1件、スタンプ「wave」付き',
    ],
  ] as const)(
    '%s: attachments %j and stickers %j are %j',
    (language, files, stickers, alone, withText) => {
      const phrases = PHRASES[language];
      const message = { attachments: [...files], stickers: [...stickers] };
      expect(cleanMessage({ ...message, content: '' }, names, options, phrases)).toEqual({
        text: alone,
        kind: 'sent',
      });
      expect(cleanMessage({ ...message, content: 'look.' }, names, options, phrases)).toEqual({
        text: withText,
        kind: 'said',
      });
    },
  );

  test.each([
    ['de', 'one two three und mehr'],
    ['fr', 'one two et plus encore'],
    ['es-ES', 'one two three four y más'],
    ['ja', 'one two three four 以下省略'],
  ] as const)('%s: a long text is cut with “and more” in the language: %j', (language, cut) => {
    const text = 'one two three four five six seven';
    expect(truncate(text, 25, PHRASES[language])).toBe(cut);
    expect(cut.length).toBeLessThanOrEqual(25);
  });
});

describe('truncate', () => {
  test('after an earlier cut, it ends with “and more” even when the text fits', () => {
    expect(truncate('short text.', 40, EN, true)).toBe('short text and more');
    expect(truncate('one two three four five six seven', 25, EN, true)).toBe(
      'one two three and more',
    );
  });

  test.each([
    ['short', 20, 'short'],
    ['one two three four five six seven', 25, 'one two three and more'],
    ['abcdefghijklmnopqrstuvwxyz', 20, 'abcdefghijk and more'],
  ])('%j at %i → %j', (text, max, cut) => {
    expect(truncate(text, max, EN)).toBe(cut);
    expect(truncate(text, max, EN).length).toBeLessThanOrEqual(max);
  });
});

describe('invariants', () => {
  test('spoken text in any language never has mention syntax, raw URLs or markdown markers, nor exceeds max length', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...LANGUAGES),
        messageText,
        fc.integer({ min: 20, max: 400 }),
        fc.constantFrom('names', 'drop'),
        fc.constantFrom('skip', 'read'),
        fc.array(
          fc.record({ word: fc.string({ minLength: 1, maxLength: 8 }), replacement: messageText }),
          {
            maxLength: 3,
          },
        ),
        fc.array(fc.constantFrom('x.png', 'y.mp4', 'z.bin'), { maxLength: 3 }),
        (language, content, maxLength, emoji, spoilers, dictionary, files) => {
          const { text } = cleanMessage(
            {
              content,
              attachments: files.map((name) => ({ name, contentType: null })),
              stickers: [],
            },
            names,
            { emoji, spoilers, maxLength },
            PHRASES[language],
            dictionary.filter((e) => e.word.trim() !== ''),
          );
          expect(text.length).toBeLessThanOrEqual(maxLength);
          expectSpeakable(text);
        },
      ),
      { numRuns: 2000 },
    );
  });

  test('finalPass is idempotent', () => {
    fc.assert(
      fc.property(fc.constantFrom(...LANGUAGES), messageText, (language, text) => {
        const once = finalPass(text, PHRASES[language]);
        expect(finalPass(once, PHRASES[language])).toBe(once);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('cleanMessage: forwards and polls (issue 30)', () => {
  const empty = { content: '', attachments: [], stickers: [] };

  test('a forward is the forwarded message, cleaned like any, its attachments named', () => {
    const forwarded = {
      content: '**Big** news <@1> at https://example.com/a',
      attachments: [{ name: 'cat.png', contentType: 'image/png' }],
      stickers: [],
    };
    expect(cleanMessage({ ...empty, forwarded }, names, options, EN)).toEqual({
      text: `Big news ${names.user('1')} at a link to example.com, with an image`,
      kind: 'forwarded',
    });
    expect(
      cleanMessage({ ...empty, forwarded: { ...forwarded, content: '' } }, names, options, EN),
    ).toEqual({ text: 'an image', kind: 'forwarded' });
  });

  test('a poll is its question and answers, each cleaned, within max-length', () => {
    const poll = { question: 'Pizza **tonight**', answers: ['yes 🍕', 'no', '<@1>'] };
    expect(cleanMessage({ ...empty, poll }, names, options, EN)).toEqual({
      text: `Pizza tonight. Options: yes pizza, no, and ${names.user('1')}`,
      kind: 'asked',
    });
    for (const maxLength of [20, 40, 60]) {
      const long = { question: 'A question '.repeat(30), answers: ['one answer '.repeat(5)] };
      const { text } = cleanMessage({ ...empty, poll: long }, names, { ...options, maxLength }, EN);
      expect(text.length).toBeLessThanOrEqual(maxLength);
      expect(text).toMatch(/and more$/);
    }
  });

  test.each(['de', 'fr', 'es-ES', 'ja'] as const)('%s: the poll glue is translated', (language) => {
    const poll = { question: 'Pizza?', answers: ['yes', 'no'] };
    const { text } = cleanMessage({ ...empty, poll }, names, options, PHRASES[language]);
    expect(text).not.toBe('Pizza? Options: yes and no');
    expect(text).toContain('Pizza?');
  });
});
