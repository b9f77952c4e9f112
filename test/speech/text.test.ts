import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { codeSpan, quoteSafely, speakableText } from '../../src/speech/index.ts';

const names = {
  user: (id: string) => ({ '1': 'Alice' })[id],
  role: (id: string) => ({ '2': 'Mods' })[id],
  channel: (id: string) => ({ '3': 'general' })[id],
};

describe('speakableText', () => {
  test.each([
    ['hi <@1> and <@!1>', 'hi Alice and Alice'],
    ['ping <@&2> in <#3>', 'ping Mods in general'],
    ['unknown <@9> <@&9> <#9>', 'unknown someone a role a channel'],
    ['nice <:party_parrot:123> <a:dance:456>', 'nice party parrot dance'],
    ['see https://example.com/x?y=1 now', 'see link now'],
    ['hello @everyone and @here', 'hello everyone and here'],
    ['  lots   of\n\nspace  ', 'lots of space'],
  ])('%j → %j', (input, spoken) => {
    expect(speakableText(input, names)).toBe(spoken);
  });
});

describe('quoteSafely', () => {
  test.each([
    ['**bold** _x_', '\\*\\*bold\\*\\* \\_x\\_'],
    ['@everyone <@1>', '@\u200beveryone <\u200b@\u200b1\\>'],
    ['[link](https://x)', '\\[link\\]\\(https://x\\)'],
    ['a'.repeat(10), 'a'.repeat(10)],
  ])('%j → %j', (input, quoted) => {
    expect(quoteSafely(input)).toBe(quoted);
  });

  test('never lets a mention or everyone-ping through, and respects the length cap', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), fc.integer({ min: 2, max: 300 }), (text, max) => {
        const quoted = quoteSafely(text, max);
        expect(quoted).not.toMatch(/<@[!&]?\d+>|<#\d+>|@(everyone|here)/);
        expect(quoted.replace(/\\|\u200b/g, '').length).toBeLessThanOrEqual(max);
      }),
    );
  });
});

describe('codeSpan', () => {
  test.each([
    ['am_2riuownnf', '`am_2riuownnf`'],
    ['a`b', '`aˋb`'],
    ['x` **bold** @everyone `y', '`xˋ **bold** @\u200beveryone ˋy`'],
    ['<@123> <#4>', '`<\u200b@123> <\u200b#4>`'],
    ['two\nlines', '`two lines`'],
    ['', '` `'],
    ['v'.repeat(80), `\`${'v'.repeat(49)}…\``],
  ])('%j → %j', (input, shown) => {
    expect(codeSpan(input, 50)).toBe(shown);
  });

  test('is always one code span on one line: nothing inside can end it', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), fc.integer({ min: 2, max: 120 }), (text, max) => {
        const span = codeSpan(text, max);
        expect(span.startsWith('`') && span.endsWith('`')).toBe(true);
        expect(span.slice(1, -1)).not.toMatch(/[`\n\r]|<@|<#|@everyone|@here/);
        expect(span.length - 2).toBeLessThanOrEqual(max);
      }),
    );
  });
});
