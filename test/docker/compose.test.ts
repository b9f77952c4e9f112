import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { expect, test } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..');

type Yaml = string | Yaml[] | { [key: string]: Yaml };

/**
 * Reads the block-style YAML our compose files use (maps, lists of scalars, inline values kept
 * as text), enough to check what they publish without a YAML dependency.
 */
function parseYaml(text: string): Yaml {
  const lines = text
    .split('\n')
    .map((line) => line.replace(/\s+#.*$|^\s*#.*$/, ''))
    .filter((line) => line.trim() !== '')
    .map((line) => ({ indent: line.length - line.trimStart().length, text: line.trim() }));
  let at = 0;
  const unquote = (value: string): string => value.replace(/^"(.*)"$|^'(.*)'$/, '$1$2');
  const block = (indent: number): Yaml => {
    const first = lines[at];
    if (first === undefined || first.indent < indent) return '';
    if (first.text.startsWith('- ')) {
      const list: Yaml[] = [];
      for (let line = lines[at]; line?.indent === first.indent && line.text.startsWith('- '); ) {
        list.push(unquote(line.text.slice(2).trim()));
        at++;
        line = lines[at];
      }
      return list;
    }
    const map: { [key: string]: Yaml } = {};
    for (let line = lines[at]; line?.indent === first.indent; line = lines[at]) {
      const match = /^([^:]+):(?:\s+(.*))?$/.exec(line.text);
      if (match === null) throw new Error(`cannot read "${line.text}"`);
      at++;
      const [, key = '', value] = match;
      map[key] = value === undefined ? block(first.indent + 1) : unquote(value);
    }
    return map;
  };
  return block(0);
}

function at(yaml: Yaml, ...path: string[]): Yaml | undefined {
  let node: Yaml | undefined = yaml;
  for (const key of path) {
    node = typeof node === 'object' && !Array.isArray(node) ? node[key] : undefined;
  }
  return node;
}

const compose = parseYaml(await readFile(join(ROOT, 'docker-compose.yml'), 'utf8'));
const hostOverride = parseYaml(await readFile(join(ROOT, 'docker-compose.host.yml'), 'utf8'));
const portsOverride = parseYaml(await readFile(join(ROOT, 'docker-compose.override.yml'), 'utf8'));

const publishedPorts = (file: Yaml) => {
  const services = at(file, 'services');
  expect(typeof services === 'object' && !Array.isArray(services)).toBe(true);
  return Object.keys(services as object).flatMap((name) => {
    const ports = at(file, 'services', name, 'ports');
    return Array.isArray(ports) ? ports.map((port) => `${name} ${String(port)}`) : [];
  });
};

test('the reader used here reads a compose file as compose does', () => {
  expect(parseYaml('a:\n  b: "1"   # note\n  c:\n    - "x:y"\n    - z\nd: [1, 2]\n')).toEqual({
    a: { b: '1', c: ['x:y', 'z'] },
    d: '[1, 2]',
  });
});

test('docker compose up publishes every port on the host’s loopback only (the override it reads)', () => {
  expect(publishedPorts(portsOverride)).toEqual(['bot 127.0.0.1:8080:8080']);
});

test('docker-compose.yml itself publishes no port, so docker-compose.host.yml can be added to it', () => {
  // compose 1.29 refuses ports with network_mode: host ("incompatible with port_bindings"), and
  // an override file can add ports but never remove them.
  expect(publishedPorts(compose)).toEqual([]);
  expect(publishedPorts(hostOverride)).toEqual([]);
});

test('on the host’s network (no published ports) the bot and Redis listen on loopback only', () => {
  for (const service of ['bot', 'redis']) {
    expect(at(hostOverride, 'services', service, 'network_mode')).toBe('host');
  }
  expect(at(hostOverride, 'services', 'bot', 'environment', 'HTTP_HOST')).toBe('127.0.0.1');
  expect(at(hostOverride, 'services', 'bot', 'environment', 'STORE_URL')).toBe(
    'redis://127.0.0.1:6379',
  );
  expect(String(at(hostOverride, 'services', 'redis', 'command'))).toMatch(
    /"--bind", "127\.0\.0\.1"/,
  );
});
