import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { type CleanupOptions, cleanMessage, finalPass, truncate } from '../../src/reader/text.ts';

const names = {
  user: (id: string) => ({ '1': 'Bobby', '4': 'https://evil.example/**x**' })[id],
  role: (id: string) => ({ '2': 'Mods' })[id],
  channel: (id: string) => ({ '3': 'general' })[id],
};
const options: CleanupOptions = { emoji: 'names', spoilers: 'skip', maxLength: 300 };
const say = (content: string, extra: Partial<CleanupOptions> = {}) =>
  cleanMessage({ content, attachments: [], stickers: [] }, names, { ...options, ...extra }).text;

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
    [[{ name: 'notes.pdf', contentType: 'application/pdf' }], ['wave'], 'a file and a sticker'],
    [[{ name: 'clip.mp4', contentType: 'video/mp4' }], [], 'a video'],
  ])('attachments %j and stickers %j are %j', (attachments, stickers, spoken) => {
    const alone = cleanMessage({ content: '', attachments, stickers }, names, options);
    expect(alone).toEqual({ text: spoken, kind: 'sent' });
    const withText = cleanMessage(
      { content: 'look at this.', attachments, stickers },
      names,
      options,
    );
    expect(withText).toEqual({ text: `look at this, with ${spoken}`, kind: 'said' });
  });

  test('a name that looks like a link or markdown is spoken clean', () => {
    expect(say('hey <@4>')).toBe('hey a link to evil.example');
  });

  test('a dictionary replacement goes through the same cleanup', () => {
    const spoken = cleanMessage(
      { content: 'lol ok', attachments: [], stickers: [] },
      names,
      options,
      [{ word: 'LOL', replacement: '**laughing** <@1> http://x.example' }],
    ).text;
    expect(spoken).toBe('laughing 1 a link to x.example ok');
  });

  test('a message that is only a spoiler or dropped emoji has nothing to say', () => {
    expect(say('||secret||')).toBe('');
    expect(say('🔥', { emoji: 'drop' })).toBe('');
  });
});

describe('truncate', () => {
  test.each([
    ['short', 20, 'short'],
    ['one two three four five six seven', 25, 'one two three and more'],
    ['abcdefghijklmnopqrstuvwxyz', 20, 'abcdefghijk and more'],
  ])('%j at %i → %j', (text, max, cut) => {
    expect(truncate(text, max)).toBe(cut);
    expect(truncate(text, max).length).toBeLessThanOrEqual(max);
  });
});

// Fragments that tempt each rule, mixed with arbitrary text.
const fragment = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.constantFrom(
    '<@123>',
    '<@!45>',
    '<@&6>',
    '<#7>',
    '<:x_y:89>',
    '<a:z:1>',
    '<t:1700000000:R>',
    'https://a.example/p?q=1',
    'http://',
    'www.x.io',
    'ht',
    'tps://',
    '://',
    '**',
    '__',
    '~~',
    '||',
    '`',
    '```',
    '> ',
    '# ',
    '\n',
    '<',
    '>',
    '@',
    '🔥',
    '👍🏽',
    'w',
    'ww.',
    '\\',
  ),
);
const messageText = fc.array(fragment, { maxLength: 30 }).map((parts) => parts.join(''));

describe('invariants', () => {
  test('spoken text never has mention syntax, raw URLs or markdown markers, nor exceeds max length', () => {
    fc.assert(
      fc.property(
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
        (content, maxLength, emoji, spoilers, dictionary) => {
          const { text } = cleanMessage(
            { content, attachments: [], stickers: [] },
            names,
            { emoji, spoilers, maxLength },
            dictionary.filter((e) => e.word.trim() !== ''),
          );
          expect(text.length).toBeLessThanOrEqual(maxLength);
          expect(text).not.toMatch(/[<>]/);
          expect(text).not.toMatch(/[a-z][a-z0-9+.-]*:\/\/|\bwww\./i);
          expect(text).not.toMatch(/[*_~`|\\]/);
          expect(text).not.toMatch(/^[#>-]|\n/);
        },
      ),
      { numRuns: 2000 },
    );
  });

  test('finalPass is idempotent', () => {
    fc.assert(
      fc.property(messageText, (text) => {
        const once = finalPass(text);
        expect(finalPass(once)).toBe(once);
      }),
      { numRuns: 1000 },
    );
  });
});
