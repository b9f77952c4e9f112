import { EventEmitter } from 'node:events';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import type Keyv from 'keyv';
import type { KeyvStoreAdapter, StoredData } from 'keyv';

/**
 * A keyv store on Node's built-in SQLite (`node:sqlite`): no native module to
 * build, no download at install. It keeps `@keyv/sqlite`'s table layout
 * (`keyv(key PRIMARY KEY, value TEXT)`), so files written before still open.
 * Keyv itself serialises values and checks expiry; this only stores strings.
 */
export class NodeSqliteStore extends EventEmitter implements KeyvStoreAdapter {
  opts: { url: string };
  namespace?: string | undefined;
  readonly #db: DatabaseSync;
  readonly #get: StatementSync;
  readonly #set: StatementSync;
  readonly #delete: StatementSync;

  /** Opens (and creates when missing) the database file at `path`, or `:memory:`. */
  constructor(path: string) {
    super();
    this.opts = { url: `sqlite://${path}` };
    this.#db = new DatabaseSync(path);
    // WAL keeps readers unblocked by a writer; the timeout rides out a second
    // process (a CLI, a test) holding the write lock for a moment.
    this.#db.exec('PRAGMA busy_timeout = 5000');
    // A value overwritten or deleted (a token an earlier version kept in clear) is zeroed in
    // the file, not left in a free page for anyone who copies it.
    this.#db.exec('PRAGMA secure_delete = ON');
    if (path !== ':memory:') this.#db.exec('PRAGMA journal_mode = WAL');
    // Writes run on the event loop that sends every server's voice packets: with WAL, NORMAL
    // commits without an fsync (one at each checkpoint), where FULL's fsync per write held the
    // loop up to 0.9 s on a busy disk (docs/design/many-voices.md). A process crash loses
    // nothing; a power cut may lose the last writes, never the file's consistency.
    this.#db.exec('PRAGMA synchronous = NORMAL');
    this.#db.exec('CREATE TABLE IF NOT EXISTS keyv (key VARCHAR(255) PRIMARY KEY, value TEXT)');
    this.#get = this.#db.prepare('SELECT value FROM keyv WHERE key = ?');
    this.#set = this.#db.prepare(
      'INSERT INTO keyv (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
    );
    this.#delete = this.#db.prepare('DELETE FROM keyv WHERE key = ?');
  }

  /** How the file is written (`journal_mode`, `synchronous` as SQLite numbers it: 1 is NORMAL), for tests and operators. */
  durability(): { journalMode: string; synchronous: number } {
    const mode = this.#db.prepare('PRAGMA journal_mode').get() as { journal_mode: string };
    const sync = this.#db.prepare('PRAGMA synchronous').get() as { synchronous: number };
    return { journalMode: mode.journal_mode, synchronous: Number(sync.synchronous) };
  }

  async get<Value>(key: string): Promise<StoredData<Value> | undefined> {
    const row = this.#get.get(key) as { value: string } | undefined;
    return row?.value as StoredData<Value> | undefined;
  }

  async getMany<Value>(keys: string[]): Promise<Array<StoredData<Value | undefined>>> {
    return Promise.all(keys.map((key) => this.get<Value>(key)));
  }

  async set(key: string, value: unknown): Promise<void> {
    this.#set.run(key, typeof value === 'string' ? value : JSON.stringify(value));
  }

  async delete(key: string): Promise<boolean> {
    return Number(this.#delete.run(key).changes) > 0;
  }

  async deleteMany(keys: string[]): Promise<boolean> {
    let deleted = false;
    for (const key of keys) deleted = (await this.delete(key)) || deleted;
    return deleted;
  }

  /**
   * Writes `value` under `key` only if the stored text is still `expected` (undefined: no record
   * yet), in one statement, so another process's write in between is never overwritten.
   * Whether it was written.
   */
  async replace(key: string, expected: string | undefined, value: string): Promise<boolean> {
    const result =
      expected === undefined
        ? this.#db
            .prepare('INSERT INTO keyv (key, value) VALUES (?, ?) ON CONFLICT(key) DO NOTHING')
            .run(key, value)
        : this.#db
            .prepare('UPDATE keyv SET value = ? WHERE key = ? AND value = ?')
            .run(value, key, expected);
    return Number(result.changes) > 0;
  }

  async has(key: string): Promise<boolean> {
    return this.#get.get(key) !== undefined;
  }

  /**
   * Every key and stored value of `namespace` (all when there is none), for keyv's
   * `iterator()`: start-up migrations list the records through it.
   */
  async *iterator(namespace?: string): AsyncGenerator<[string, string]> {
    const rows =
      namespace === undefined
        ? this.#db.prepare('SELECT key, value FROM keyv').all()
        : this.#db
            .prepare("SELECT key, value FROM keyv WHERE key LIKE ? ESCAPE '\\'")
            .all(`${escapeLike(namespace)}:%`);
    for (const row of rows as { key: string; value: string }[]) yield [row.key, row.value];
  }

  /** Every stored key that starts with `prefix`, as stored (namespace included); see `keysUnder`. */
  async keysStartingWith(prefix: string): Promise<string[]> {
    const rows = this.#db
      .prepare("SELECT key FROM keyv WHERE key LIKE ? ESCAPE '\\'")
      .all(`${escapeLike(prefix)}%`) as Array<{ key: string }>;
    // LIKE ignores ASCII case; the prefix must match exactly.
    return rows.map((row) => row.key).filter((key) => key.startsWith(prefix));
  }

  /** Deletes this namespace's keys only (all keys when there is no namespace). */
  async clear(): Promise<void> {
    if (this.namespace === undefined) {
      this.#db.exec('DELETE FROM keyv');
      return;
    }
    this.#db
      .prepare("DELETE FROM keyv WHERE key LIKE ? ESCAPE '\\'")
      .run(`${escapeLike(this.namespace)}:%`);
  }

  /**
   * Moves the write-ahead log into the database file and empties it (`wal_checkpoint(TRUNCATE)`):
   * a deleted record stays readable in the WAL until then (secure_delete zeroes it only in the
   * file). Whether it completed (false while another connection reads an older snapshot).
   */
  async checkpoint(): Promise<boolean> {
    if (!this.#db.isOpen) return false;
    const row = this.#db.prepare('PRAGMA wal_checkpoint(TRUNCATE)').get() as
      | { busy: number }
      | undefined;
    return row?.busy === 0;
  }

  async disconnect(): Promise<void> {
    if (this.#db.isOpen) this.#db.close();
  }
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * Makes deletions final on disk where the store keeps a log of them: SQLite's WAL is folded into
 * the file and emptied (forgetting a server must leave no copy of its records). Redis and memory
 * have no such log: true at once. Whether it completed.
 */
export function flushDeletions(keyv: Keyv): Promise<boolean> {
  const store: unknown = keyv.store;
  return store instanceof NodeSqliteStore ? store.checkpoint() : Promise.resolve(true);
}
