import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { decryptSecret, encryptSecret, openBound, sealBound } from '../../src/store/index.ts';

const key = Buffer.alloc(32, 7);
const otherKey = Buffer.alloc(32, 8);

/** Every single-character change of `text` into another base64 character (or none). */
function oneCharEdits(text: string): string[] {
  const alphabet = 'AZaz09+/=';
  const edits: string[] = [];
  for (let i = 0; i < text.length; i++) {
    for (const c of alphabet)
      if (c !== text[i]) edits.push(text.slice(0, i) + c + text.slice(i + 1));
    edits.push(text.slice(0, i) + text.slice(i + 1));
  }
  return edits;
}

describe('sealBound / openBound', () => {
  test('round trip for any text and context; the sealed form never shows the text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.string(), (plaintext, context) => {
        const sealed = sealBound(plaintext, key, context);
        expect(openBound(sealed, key, context)).toBe(plaintext);
        expect(sealed).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
        if (plaintext.length >= 6) expect(sealed).not.toContain(plaintext);
      }),
    );
  });

  test('a random IV: sealing the same text twice gives two different records', () => {
    expect(sealBound('tok', key, 'c')).not.toBe(sealBound('tok', key, 'c'));
  });

  test('any other context or key does not open it', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string(), (plaintext, context, other) => {
        fc.pre(other !== context);
        const sealed = sealBound(plaintext, key, context);
        expect(() => openBound(sealed, key, other)).toThrow();
        expect(() => openBound(sealed, otherKey, context)).toThrow();
      }),
    );
  });

  test('every one-character change, deletion or truncation is refused', () => {
    const sealed = sealBound('interaction-token-abcdef', key, 'ctx');
    const tampered = [
      ...oneCharEdits(sealed),
      sealed.slice(0, 20),
      '',
      `${sealed}AAAA`,
      ` ${sealed}`,
    ];
    for (const text of tampered) expect(() => openBound(text, key, 'ctx'), text).toThrow();
  });

  test.each<[string, string, string]>([
    ['an API key record does not open as a token', 'guild:1', '["pending-reply","1","e","a"]'],
    ['a token does not open as an API key record', '["pending-reply","1","e","a"]', 'guild:1'],
  ])('%s: contexts keep the two apart', (_, sealedFor, openedAs) => {
    expect(() => openBound(sealBound('secret', key, sealedFor), key, openedAs)).toThrow();
  });

  test('an API key sealed by encryptSecret is sealBound under the guild context', () => {
    const sealed = encryptSecret('adx_secret', key, '42');
    expect(openBound(sealed.slice('v2:'.length), key, 'guild:42')).toBe('adx_secret');
    expect(decryptSecret(`v2:${sealBound('adx_secret', key, 'guild:42')}`, key, '42')).toBe(
      'adx_secret',
    );
  });
});
