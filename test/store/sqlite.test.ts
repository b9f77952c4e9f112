import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import Keyv from 'keyv';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { openKeyv } from '../../src/store/index.ts';
import { NodeSqliteStore } from '../../src/store/sqlite.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tts-sqlite-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('NodeSqliteStore', () => {
  test('a write does not wait for the disk: WAL with synchronous NORMAL (no fsync per commit)', () => {
    const store = new NodeSqliteStore(join(dir, 'd.sqlite'));
    expect(store.durability()).toEqual({ journalMode: 'wal', synchronous: 1 });
  });

  test('values, expiry and deletion through keyv', async () => {
    const keyv = await openKeyv(`sqlite://${join(dir, 'a.sqlite')}`);
    await keyv.set('k', { n: 1 });
    expect(await keyv.get('k')).toEqual({ n: 1 });
    expect(await keyv.has('k')).toBe(true);
    await keyv.set('short', 'v', 1);
    await new Promise((r) => setTimeout(r, 5));
    expect(await keyv.get('short')).toBeUndefined();
    expect(await keyv.delete('k')).toBe(true);
    expect(await keyv.delete('k')).toBe(false);
    expect(await keyv.get('k')).toBeUndefined();
    await keyv.disconnect();
  });

  test('clear empties its own namespace and leaves the others (LIKE wildcards escaped)', async () => {
    const file = join(dir, 'n.sqlite');
    const a = new Keyv({ store: new NodeSqliteStore(file), namespace: 'a_b' });
    const other = new Keyv({ store: new NodeSqliteStore(file), namespace: 'axb' });
    await a.set('x', 1);
    await other.set('x', 2);
    await a.clear();
    expect(await a.get('x')).toBeUndefined();
    expect(await other.get('x')).toBe(2);
    await a.disconnect();
    await other.disconnect();
  });

  test('a file in the layout @keyv/sqlite wrote opens with its data', async () => {
    const file = join(dir, 'old.sqlite');
    const db = new DatabaseSync(file);
    db.exec('CREATE TABLE keyv (key VARCHAR(255) PRIMARY KEY, value TEXT)');
    db.prepare('INSERT INTO keyv (key, value) VALUES (?, ?)').run(
      'tts-bot:guild:1',
      JSON.stringify({ value: { defaults: { model: 'base' } }, expires: null }),
    );
    db.close();
    const keyv = await openKeyv(`sqlite://${file}`);
    expect(await keyv.get('guild:1')).toEqual({ defaults: { model: 'base' } });
    await keyv.disconnect();
  });

  test('an overwritten or deleted value leaves no bytes behind in the file', async () => {
    const file = join(dir, 'scrub.sqlite');
    const keyv = await openKeyv(`sqlite://${file}`);
    // Padding puts both values on the same page as others that stay, as real records do.
    await keyv.set('kept', { pad: 'k'.repeat(500) });
    await keyv.set('overwritten', { token: 'CLEAR_TOKEN_overwritten_1234', pad: 'x'.repeat(300) });
    await keyv.set('deleted', { token: 'CLEAR_TOKEN_deleted_5678', pad: 'y'.repeat(300) });
    await keyv.set('overwritten', { sealed: 'z'.repeat(40), pad: 'x'.repeat(300) });
    await keyv.delete('deleted');
    await keyv.disconnect();
    const files = (await readdir(dir)).filter((name) => name.startsWith('scrub.sqlite'));
    expect(files).toEqual(['scrub.sqlite']);
    const bytes = await readFile(file);
    expect(bytes.includes('k'.repeat(500))).toBe(true);
    expect(bytes.includes('CLEAR_TOKEN')).toBe(false);
  });

  test('two handles on one file see each other’s writes (a CLI beside the bot)', async () => {
    const file = join(dir, 'shared.sqlite');
    const one = await openKeyv(`sqlite://${file}`);
    const two = await openKeyv(`sqlite://${file}`);
    await one.set('k', 'from one');
    expect(await two.get('k')).toBe('from one');
    await one.disconnect();
    await two.disconnect();
  });
});
