/**
 * The layers hold: `src/discord` renders what the domain decides, so no subsystem below it
 * (`src/reader`, `src/speaking`, `src/speech`, …) may import from it. The entry points and
 * the composition root (the files directly in `src/`) wire it, and `commands/` adapts to it.
 * The whole order is the one `docs/ARCHITECTURE.md` lists under "Layers", read from there.
 */
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SRC = join(ROOT, 'src');
const DISCORD = join(SRC, 'discord');
const COMMANDS = join(ROOT, 'commands');
const ARCHITECTURE = join(ROOT, 'docs', 'ARCHITECTURE.md');

/** Every `.ts` file under `dir`, as absolute paths. */
async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** The module specifiers a file imports or re-exports, `import type` included. */
function importsOf(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map((file) => file.fileName);
}

const inside = (dir: string, path: string) => path === dir || path.startsWith(`${dir}${sep}`);

test('no subsystem under src/ imports from src/discord', async () => {
  const upward: string[] = [];
  for (const file of await sourceFiles(SRC)) {
    if (inside(DISCORD, file) || dirname(file) === SRC) continue;
    for (const specifier of importsOf(await readFile(file, 'utf8'))) {
      if (!specifier.startsWith('.')) continue;
      if (inside(DISCORD, resolve(dirname(file), specifier))) {
        upward.push(`${relative(ROOT, file)} imports ${specifier}`);
      }
    }
  }
  expect(upward).toEqual([]);
});

/**
 * The layers as `docs/ARCHITECTURE.md` lists them, bottom up: each numbered line of its
 * "Layers" section, its `src/…` and `commands/` names in order (the prose around them aside).
 */
function documentedLayers(markdown: string): string[] {
  const section = /^## Layers\n([\s\S]*?)^## /m.exec(markdown)?.[1] ?? '';
  return section
    .split('\n')
    .filter((line) => /^\d+\. /.test(line))
    .flatMap((line) =>
      [...line.matchAll(/`((?:src\/[\w.-]+)|commands\/)`/g)].map((m) => m[1] ?? ''),
    )
    .map((name) => name.replace(/\/$/, ''));
}

/** The layer a file belongs to: its folder under `src/`, a file directly in `src/`, or `commands`. */
function unitOf(file: string): string {
  if (inside(COMMANDS, file)) return 'commands';
  const path = relative(ROOT, file).split(sep);
  return path.length > 2 ? `${path[0]}/${path[1]}` : path.join('/');
}

test('imports run down the layers docs/ARCHITECTURE.md lists, and it lists every folder', async () => {
  const layers = documentedLayers(await readFile(ARCHITECTURE, 'utf8'));
  expect(layers.length).toBeGreaterThan(10);
  // Files directly in `src/` not listed are entry points: above everything, imported by nothing.
  const rank = (unit: string): number => {
    const index = layers.indexOf(unit);
    return index >= 0 ? index : /^src\/[\w-]+\.ts$/.test(unit) ? layers.length : -1;
  };
  const problems: string[] = [];
  const folders = (await readdir(SRC, { withFileTypes: true })).filter((entry) =>
    entry.isDirectory(),
  );
  for (const folder of folders) {
    if (!layers.includes(`src/${folder.name}`)) problems.push(`src/${folder.name} is in no layer`);
  }
  for (const file of [...(await sourceFiles(SRC)), ...(await sourceFiles(COMMANDS))]) {
    const from = unitOf(file);
    for (const specifier of importsOf(await readFile(file, 'utf8'))) {
      if (!specifier.startsWith('.')) continue;
      const target = resolve(dirname(file), specifier);
      if (!inside(SRC, target) && !inside(COMMANDS, target)) continue;
      const to = unitOf(target);
      if (to !== from && !(rank(to) < rank(from))) {
        problems.push(`${relative(ROOT, file)} imports ${specifier} (${to} is not below ${from})`);
      }
    }
  }
  expect(problems).toEqual([]);
});

test('the layer list is read as written', () => {
  const markdown = [
    '## Layers',
    'Prose naming `src/nowhere` is not a layer.',
    '1. Bottom: `src/log`, `src/tts`',
    '2. Then `src/services.ts` (a deeper path such as `src/discord/wire.ts` is prose)',
    '3. Top: `commands/`',
    '## Next',
    '1. `src/elsewhere`',
  ].join('\n');
  expect(documentedLayers(markdown)).toEqual(['src/log', 'src/tts', 'src/services.ts', 'commands']);
});

test('the scan sees every kind of import', () => {
  const text = [
    "import type { A } from './a.ts';",
    "import {\n  b,\n  type C,\n} from '../b.ts';",
    "export { d } from './d.ts';",
    "import './e.ts';",
    "// import { f } from './f.ts';",
  ].join('\n');
  expect(importsOf(text)).toEqual(['./a.ts', '../b.ts', './d.ts', './e.ts']);
});
