import { expect, test } from 'vitest';
import { isSendableKey, keyId, maskKey } from '../../src/tts/index.ts';

test.each([
  ['adx_abcdefghijkl1a2b', 'adx_…1a2b'],
  ['plainkeywithoutprefix9z', '…ix9z'],
  ['adx_short', 'adx_…'],
  ['', '…'],
])('maskKey(%j) = %j', (key, masked) => {
  expect(maskKey(key)).toBe(masked);
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
