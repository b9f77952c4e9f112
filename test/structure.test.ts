import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { expect, test } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');
const SCANNED = ['src', 'commands'];

/** Every `.ts` file below `dir`, as paths relative to the project root. */
async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(join(ROOT, dir), { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)))
    .sort();
}

/**
 * The project files a module names in its static `import … from` and `export … from`
 * declarations, `import type` included: a cycle of types still ties the files together.
 */
function importsOf(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: string[] = [];
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) && !ts.isExportDeclaration(statement)) continue;
    const specifier = statement.moduleSpecifier;
    if (specifier === undefined || !ts.isStringLiteral(specifier)) continue;
    if (!specifier.text.startsWith('.')) continue;
    found.push(relative(ROOT, resolve(ROOT, dirname(file), specifier.text)));
  }
  return found;
}

/** Import graph of `src/` and `commands/`: file → the project files it imports. */
async function importGraph(): Promise<Map<string, string[]>> {
  const graph = new Map<string, string[]>();
  for (const dir of SCANNED) {
    for (const file of await sourceFiles(dir)) {
      graph.set(file, importsOf(file, await readFile(join(ROOT, file), 'utf8')));
    }
  }
  return graph;
}

/** The strongly connected groups of more than one file (or a file importing itself), by Tarjan. */
function cycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  let next = 0;
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next);
    next++;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file) ?? 0, low.get(target) ?? 0));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file) ?? 0, index.get(target) ?? 0));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      group.push(member);
    } while (member !== file);
    if (group.length > 1 || (graph.get(file) ?? []).includes(file)) groups.push(group.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return groups;
}

test('the scanner sees type-only, multi-line and re-export imports, and finds a planted loop', () => {
  const imports = importsOf(
    'src/a/x.ts',
    [
      "import type { A } from './y.ts';",
      'import {',
      '  b,',
      "} from '../b/index.ts';",
      "export { c } from './c.ts';",
      "import { readFile } from 'node:fs';",
      "const later = () => import('./lazy.ts');",
    ].join('\n'),
  );
  expect(imports).toEqual(['src/a/y.ts', 'src/b/index.ts', 'src/a/c.ts']);
  const graph = new Map([
    ['a.ts', ['b.ts']],
    ['b.ts', ['c.ts']],
    ['c.ts', ['a.ts']],
    ['d.ts', ['a.ts']],
  ]);
  expect(cycles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
});

test('no import loops in src/ and commands/ (types included): each group listed is one loop', async () => {
  const graph = await importGraph();
  expect(graph.size).toBeGreaterThan(100);
  expect(cycles(graph)).toEqual([]);
});
