/**
 * The layers hold: `src/discord` renders what the domain decides, so no subsystem below it
 * (`src/reader`, `src/speaking`, `src/speech`, …) may import from it. The entry points and
 * the composition root (the files directly in `src/`) wire it, and `commands/` adapts to it.
 */
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SRC = join(ROOT, 'src');
const DISCORD = join(SRC, 'discord');

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
