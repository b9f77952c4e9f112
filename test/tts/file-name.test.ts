import fc from 'fast-check';
import { expect, test } from 'vitest';
import { safeFileStem } from '../../src/tts/index.ts';

test.each([
  ['base_4f7c1f4e-93a1-4c4e-9b8e-6d0c1f2a3b4c', 100, 'base_4f7c1f4e-93a1-4c4e-9b8e-6d0c1f2a3b4c'],
  ['base_4f7c1f4e-93a1-4c4e-9b8e-6d0c1f2a3b4c', 8, '1f2a3b4c'],
  ['../../etc/passwd', 100, 'etcpasswd'],
  ['x/../..', 8, 'x'],
  ['../..', 8, 'speech'],
  ['C:\\Windows\\evil.exe', 100, 'CWindowsevilexe'],
])('%j (at most %i) → %j', (id, max, stem) => {
  expect(safeFileStem(id, max)).toBe(stem);
});

test('only [A-Za-z0-9_-], never empty, never longer than asked', () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 200 }), fc.integer({ min: 1, max: 120 }), (id, max) => {
      const stem = safeFileStem(id, max);
      expect(stem).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(stem.length).toBeLessThanOrEqual(Math.max(max, 'speech'.length));
    }),
  );
});
