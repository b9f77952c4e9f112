import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { outputPath } from '../../tools/output-path.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tts-out-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

test.each([
  ['base_4f7c1f4e-93a1-4c4e-9b8e-6d0c1f2a3b4c', 'base_4f7c1f4e-93a1-4c4e-9b8e-6d0c1f2a3b4c.wav'],
  ['../../../../tmp/evil', 'tmpevil.wav'],
  ['/etc/passwd', 'etcpasswd.wav'],
  ['..', 'speech.wav'],
  ['a b\u0000c\nd%2F..', 'abcd2F.wav'],
  ['', 'speech.wav'],
])('a generation id %j saved into a directory becomes %j inside it', async (id, name) => {
  const path = await outputPath(dir, id, 'wav');
  expect(dirname(path)).toBe(dir);
  expect(basename(path)).toBe(name);
});

test('a file name given with --out keeps its folder and takes the sniffed extension', async () => {
  expect(await outputPath(join(dir, 'out.mp3'), '../x', 'wav')).toBe(join(dir, 'out.wav'));
});
