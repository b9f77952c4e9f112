import fc from 'fast-check';
import Keyv from 'keyv';
import { describe, expect, test } from 'vitest';
import { translatorFor } from '../../src/i18n/index.ts';
import { type ChatLine, composeBatch } from '../../src/reader/compose.ts';
import { ENGLISH_PHRASES } from '../../src/reader/phrases.ts';
import { UserError } from '../../src/refusal/index.ts';
import { BlockedWords } from '../../src/speaking/blocked-words.ts';
import { compileBlocklist } from '../../src/speech/index.ts';
import { type GuildSettings, KeyvSettingsStore } from '../../src/store/index.ts';

const WORDS = ['cunt', 'bad word', 'fuck'];

async function guildWith(blocked: 'skip' | 'bleep'): Promise<GuildSettings> {
  const settings = new KeyvSettingsStore(new Keyv());
  return settings.updateGuild('g', (guild) => ({
    ...guild,
    blockedWords: WORDS,
    reader: { ...guild.reader, blocked },
  }));
}

/** One author's messages, each clean on its own, as a chat turn composes them. */
function turnOf(author: string, texts: readonly string[]): string {
  const lines: ChatLine[] = texts.map((text, i) => ({
    authorId: 'b',
    authorName: author,
    text,
    kind: 'said',
    at: i * 1_000,
  }));
  return composeBatch(lines, {
    saidPrefix: true,
    minLength: 1,
    last: undefined,
    phrases: ENGLISH_PHRASES,
  }).text;
}

describe('BlockedWords', () => {
  const screen = new BlockedWords();
  const each = compileBlocklist(WORDS);

  test.each([
    ['a word over two messages', 'Bobby', ['bad.', 'word.']],
    ['a word a letter a message', 'Bobby', ['f', 'u', 'c', 'k']],
    ['a name as it is read', 'cunt', ['hello everyone']],
  ])('%s: each part passes alone, the composed turn is bleeped', async (_, author, parts) => {
    for (const part of parts) expect(each.find(part)).toEqual([]);
    const text = turnOf(author, parts);
    expect(each.find(text)).not.toEqual([]);
    const bleeped = screen.screen('g', await guildWith('bleep'), text);
    expect(bleeped).toContain('beep');
    expect(each.find(bleeped)).toEqual([]);
    const skip = await guildWith('skip');
    expect(() => screen.screen('g', skip, text)).toThrow(UserError);
  });

  test.each([
    // No language (v2): the server's word; else the line's language's, or a pause without one.
    [undefined, 'Bobby said hello piep.'],
    ['de', 'Bobby said hello piep.'],
    ['en', 'Bobby said hello beep.'],
    ['es', 'Bobby said hello pip.'],
    ['it', 'Bobby said hello ….'],
  ])(
    'a German server bleeps a text read in %s with that language’s word',
    async (language, said) => {
      const german = new BlockedWords(() => translatorFor('de'));
      expect(german.screen('g', await guildWith('bleep'), 'Bobby said hello fuck.', language)).toBe(
        said,
      );
    },
  );

  test('property: what it lets through holds no blocked word, whatever the mode', async () => {
    const [bleep, skip] = [await guildWith('bleep'), await guildWith('skip')];
    const part = fc.constantFrom('f', 'u', 'c', 'k', 'bad.', 'word', 'cu@nt', 'hello', ' ', '.');
    fc.assert(
      fc.property(
        fc.array(part, { maxLength: 10 }),
        fc.array(part, { maxLength: 3 }),
        (texts, name) => {
          const text = turnOf(name.join(''), texts);
          expect(each.find(screen.screen('g', bleep, text))).toEqual([]);
          try {
            expect(screen.screen('g', skip, text)).toBe(text);
            expect(each.find(text)).toEqual([]);
          } catch (error) {
            expect(error).toBeInstanceOf(UserError);
          }
        },
      ),
    );
  });
});
