import { readFile } from 'node:fs/promises';
import { dirname, join, normalize, relative, resolve } from 'node:path';
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

const dockerfile = await readFile(join(ROOT, 'Dockerfile'), 'utf8');
const copied = [...dockerfile.matchAll(/^COPY (?!--from)(.+) \S+$/gm)].flatMap(([, sources = '']) =>
  sources.split(/\s+/),
);

test('the image needs nothing the build context leaves out', () => {
  expect(copied).toEqual([
    'package.json',
    'package-lock.json',
    'package.json',
    'commands',
    'src',
    'tools',
  ]);
  // A folder left out but for exceptions (`tools`, `!tools/…`) is in the context with those.
  const reincluded = (path: string) => patterns.some((line) => line.startsWith(`!${path}/`));
  for (const path of copied) expect(ignored(patterns, path) && !reincluded(path), path).toBe(false);
});

/** Whether the image has `path` (relative to the project): copied, and not left out. */
const inImage = (path: string): boolean =>
  !ignored(patterns, path) && copied.some((c) => path === c || path.startsWith(`${c}/`));

/** `path` and every project file it imports, transitively (relative imports only). */
async function importedFrom(path: string, seen = new Set<string>()): Promise<Set<string>> {
  if (seen.has(path)) return seen;
  seen.add(path);
  const source = await readFile(join(ROOT, path), 'utf8');
  for (const [, specifier = ''] of source.matchAll(/(?:from|import\()\s*'(\.{1,2}\/[^']+)'/g)) {
    const target = relative(ROOT, resolve(ROOT, dirname(path), specifier));
    await importedFrom(normalize(target), seen);
  }
  return seen;
}

const { scripts } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
};

test.each(['start:sharded', 'deploy-commands', 'secrets:rotate', 'tts', 'emulator'])(
  'an operator’s `npm run %s` runs inside the image: the file it starts and all it imports are there',
  async (name) => {
    const entry = (scripts[name] ?? '').split(/\s+/).find((word) => word.endsWith('.ts')) ?? '';
    expect(entry, name).not.toBe('');
    for (const path of await importedFrom(entry)) expect(inImage(path), path).toBe(true);
  },
);

test('the example run publishes port 8080 on the host’s loopback only, and says what to back up', () => {
  const published = [...dockerfile.matchAll(/-p (\S+:\S+)/g)].map(([, port]) => port);
  expect(published).toEqual(['127.0.0.1:8080:8080']);
  expect(dockerfile).toMatch(/back up .*secret\.key/is);
});
