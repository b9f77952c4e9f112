import fc from 'fast-check';
import { expect, test } from 'vitest';
import { isSendableKey, keyId, maskKey } from '../../src/tts/index.ts';

test.each([
  ['adx_abcdefghijkl1a2b', 'adx…a2b'],
  ['adx_test_key_one_0001', 'adx…0001'],
  ['plainkeywithoutprefix9z', 'pla…ix9z'],
  ['averyveryverylongprefixthatgoesonandon_k1a2b3c4d5', 'aver…c4d5'],
  ['adx_short', 'a…rt'],
  ['abcde', '…e'],
  ['ab', '…'],
  ['', '…'],
])('maskKey(%j) = %j', (key, masked) => {
  expect(maskKey(key)).toBe(masked);
});

test('maskKey shows at most 4 leading and 4 trailing characters, never more than a third of the key', () => {
  fc.assert(
    fc.property(fc.string({ minLength: 0, maxLength: 300 }), (key) => {
      const masked = maskKey(key);
      const [head = '', tail = '', ...rest] = masked.split('…');
      expect(rest).toEqual([]);
      expect(head.length).toBeLessThanOrEqual(4);
      expect(tail.length).toBeLessThanOrEqual(4);
      expect(head.length + tail.length).toBeLessThanOrEqual(Math.floor(key.length / 3));
      expect(key.startsWith(head)).toBe(true);
      expect(key.endsWith(tail)).toBe(true);
    }),
  );
});

test('keyId is stable, short and does not contain the key', () => {
  const key = 'adx_secret_value_123456';
  expect(keyId(key)).toBe(keyId(key));
  expect(keyId(key)).toHaveLength(16);
  expect(keyId(key)).not.toContain('secret');
  expect(keyId(key)).not.toBe(keyId(`${key}x`));
});

test.each([
  ['adx_abcdefghijkl1a2b', true],
  ['!~plain-ASCII_9', true],
  ['', false],
  ['adx key', false],
  ['adx_\0', false],
  ['adx_\r\n', false],
  ['adx_\t', false],
  ['adx_\x7f', false],
  ['adx_é', false],
])('isSendableKey(%j) = %j', (key, sendable) => {
  expect(isSendableKey(key)).toBe(sendable);
});
