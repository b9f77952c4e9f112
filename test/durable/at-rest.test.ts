/**
 * Nothing secret at rest: with a /say generating, everything the bot keeps (the SQLite files,
 * or every Redis key, value and its append-only file) holds neither the interaction token nor
 * the server's API key in clear; after a SIGKILL and a restart, the sealed token still edits
 * the original reply, and neither the logs nor `/metrics` and `/readyz` show a secret.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@redis/client';
import { afterAll, expect, test } from 'vitest';
import { keyId } from '../../src/tts/index.ts';
import { USER_ONE } from '../../tools/emulator/index.ts';
import { submissionCount } from '../support/api-under-test.ts';
import { type ProcessWorld, startProcessWorld } from '../support/process-world.ts';
import { freePort, startRedis, type TestRedis } from '../support/redis.ts';

const opened: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const part of opened.reverse()) await part.close();
});

/** Every byte of every file under `dir`, as one buffer. */
async function filesUnder(dir: string): Promise<Buffer> {
  const parts: Buffer[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) parts.push(await readFile(join(entry.parentPath, entry.name)));
  }
  return Buffer.concat(parts);
}

/** Every key in Redis with its value, whatever its type. */
async function redisContents(url: string): Promise<string> {
  const redis = createClient({ url });
  await redis.connect();
  const parts: string[] = [];
  try {
    for (const key of await redis.keys('*')) {
      const type = await redis.type(key);
      const value =
        type === 'string'
          ? await redis.get(key)
          : type === 'zset'
            ? await redis.zRangeWithScores(key, 0, -1)
            : type === 'hash'
              ? await redis.hGetAll(key)
              : type === 'list'
                ? await redis.lRange(key, 0, -1)
                : type === 'set'
                  ? await redis.sMembers(key)
                  : `<${type}>`;
      parts.push(`${key} ${JSON.stringify(value)}`);
    }
  } finally {
    await redis.close();
  }
  return parts.join('\n');
}

interface Store {
  readonly env: Record<string, string>;
  /** Everything the store holds, as bytes or text. */
  contents(world: ProcessWorld): Promise<string | Buffer>;
}

async function sqliteStore(): Promise<Store> {
  return { env: {}, contents: (world) => filesUnder(world.dataDir) };
}

async function redisStore(): Promise<Store> {
  // With an append-only file, every write Redis ever took is on disk: scanned too.
  const dir = await mkdtemp(join(tmpdir(), 'tts-redis-aof-'));
  const redis: TestRedis = await startRedis(undefined, { dir });
  opened.push({
    close: async () => {
      await redis.stop();
      await rm(dir, { recursive: true, force: true });
    },
  });
  return {
    env: { STORE_URL: redis.url },
    contents: async () =>
      `${await redisContents(redis.url)}\n${(await filesUnder(dir)).toString('latin1')}`,
  };
}

test.each([
  ['SQLite', sqliteStore],
  ['Redis', redisStore],
])(
  '%s: neither the interaction token nor the API key is stored in clear; resume still edits the reply',
  async (_, makeStore) => {
    const store = await makeStore();
    const world = await startProcessWorld({
      // Still generating when the process dies.
      emulator: { generationMs: () => 8000 },
      env: store.env,
    });
    opened.push(world);
    const first = await world.start();
    await world.configureKey(USER_ONE.apiKey);
    const handle = world.discord.slash({
      user: 'member',
      name: 'say',
      options: { text: 'This request keeps its reply token sealed at rest.', output: 'file' },
    });
    await handle.waitFor(
      (e) => e.kind === 'edit' && /Generating/.test(JSON.stringify(e.data)),
      20_000,
    );
    first.child.kill('SIGKILL');
    await first.exited;

    // What a copy of the store would show: the entry is there, its secrets are not.
    const raw = (await store.contents(world)).toString('latin1');
    expect(raw).toContain('sealedToken');
    expect(raw).toContain('sealedApiKey');
    expect(raw).toContain('keeps its reply token sealed');
    expect(handle.token.length).toBeGreaterThan(20);
    expect(raw).not.toContain(handle.token);
    expect(raw).not.toContain(USER_ONE.apiKey);
    if (store.env.STORE_URL !== undefined) {
      // Shared rate budgets are named by the key's id (a hash), never by the key.
      expect(raw).toContain(`budget:${keyId(USER_ONE.apiKey)}:`);
    }

    const port = await freePort();
    const second = await world.start({ HTTP_PORT: String(port), HTTP_HOST: '127.0.0.1' });
    await second.waitForLog(/"count":1,"msg":"resuming pending speech"/);
    await handle.waitFor((e) => e.kind === 'edit' && e.original && e.files.length > 0, 30_000);
    expect(handle.files()).toHaveLength(1);
    expect(submissionCount(world.emulator)).toBe(1);
    // The operations endpoint shows no secret, nor which key served (its id).
    const ops = await Promise.all(
      ['/metrics', '/readyz'].map(async (path) =>
        (await fetch(`http://127.0.0.1:${port}${path}`)).text(),
      ),
    );
    expect(ops[0]).toContain('tts_api_requests_total');
    for (const text of ops) {
      for (const secret of [handle.token, USER_ONE.apiKey, keyId(USER_ONE.apiKey)]) {
        expect(text).not.toContain(secret);
      }
    }
    second.child.kill('SIGTERM');
    expect(await second.exited).toEqual({ code: 0, signal: null });
    for (const output of [first.output(), second.output()]) {
      expect(output).not.toContain(handle.token);
      expect(output).not.toContain(USER_ONE.apiKey);
    }
    const after = (await store.contents(world)).toString('latin1');
    expect(after).not.toContain(handle.token);
    expect(after).not.toContain(USER_ONE.apiKey);
  },
  120_000,
);
