import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { expect, test } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..');

/** Whether Docker leaves `path` out of the build context: the last matching line decides. */
function ignored(patterns: readonly string[], path: string): boolean {
  let result = false;
  for (const line of patterns) {
    const negated = line.startsWith('!');
    const glob = (negated ? line.slice(1) : line).replace(/^\/+|\/+$/g, '');
    const source = glob
      .split(/(\*\*|\*|\?)/)
      .map((part) =>
        part === '**'
          ? '.*'
          : part === '*'
            ? '[^/]*'
            : part === '?'
              ? '[^/]'
              : part.replace(/[.+^${}()|[\]\\]/g, '\\$&'),
      )
      .join('');
    // A pattern naming a folder covers everything in it.
    if (new RegExp(`^${source}(/.*)?$`).test(path)) result = !negated;
  }
  return result;
}

const patterns = (await readFile(join(ROOT, '.dockerignore'), 'utf8'))
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line !== '' && !line.startsWith('#'));

test.each([
  ['.env', true],
  ['.env.local', true],
  ['.env.production', true],
  ['.env.example', true],
  ['data/bot.sqlite', true],
  ['src/main.ts', false],
  ['package-lock.json', false],
])('the build context leaves out %s: %s', (path, expected) => {
  expect(ignored(patterns, path)).toBe(expected);
});

test('the image needs nothing the build context leaves out', async () => {
  const dockerfile = await readFile(join(ROOT, 'Dockerfile'), 'utf8');
  const copied = [...dockerfile.matchAll(/^COPY (?!--from)(.+) \S+$/gm)].flatMap(
    ([, sources = '']) => sources.split(/\s+/),
  );
  expect(copied).toEqual(['package.json', 'package-lock.json', 'package.json', 'commands', 'src']);
  for (const path of copied) expect(ignored(patterns, path), path).toBe(false);
});
