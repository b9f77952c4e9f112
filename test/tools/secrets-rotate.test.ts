/**
 * Rotating SECRET_KEY end to end (issue 20): the real bot reads a key sealed with an older
 * secret when SECRET_KEY_PREVIOUS names it, refuses plainly (and keeps running) when nothing
 * does, and `npm run secrets:rotate` (its package.json command, under this Node) seals every
 * record with SECRET_KEY on SQLite and on Redis, after which no previous secret is needed.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Keyv from 'keyv';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { PendingJournal, RedisJournalIndex } from '../../src/durable/index.ts';
import { INTERACTION_TOKEN_LIFETIME_MS, type PendingSpeech } from '../../src/durable/pending.ts';
import {
  ApiKeyVault,
  encryptSecret,
  KeyvSettingsStore,
  openKeyv,
  openRedis,
  type RedisConnection,
  SETTINGS_CACHE_MS,
  type SettingsStore,
} from '../../src/store/index.ts';
import { systemClock } from '../../src/tts/index.ts';
import { USER_ONE, USER_TWO } from '../../tools/emulator/index.ts';
import { REPO_ROOT } from '../../tools/local-stack/index.ts';
import { startTestBot, type TestBot } from '../support/bot-harness.ts';
import { startRedis, type TestRedis } from '../support/redis.ts';

const OLDER = Buffer.alloc(32, 0x21);
const OLD = Buffer.alloc(32, 0x42);
const CURRENT = Buffer.alloc(32, 0x63);
const STRANGER = Buffer.alloc(32, 0x7e);
const hex = (key: Buffer) => key.toString('hex');
const OTHER_GUILD = '222222222222222222';
const LOST_GUILD = '333333333333333333';

interface Run {
  readonly code: number | null;
  readonly output: string;
}

/** `npm run secrets:rotate` as package.json spells it, under the Node running the tests. */
async function rotate(env: Record<string, string>): Promise<Run> {
  const pkg = JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const [node, ...args] = (pkg.scripts['secrets:rotate'] ?? '').split(/\s+/);
  expect(node).toBe('node');
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      args,
      {
        cwd: REPO_ROOT,
        env: {
          PATH: process.env.PATH ?? '',
          ...(process.env.TTS_BOT_TEST_RUN
            ? { TTS_BOT_TEST_RUN: process.env.TTS_BOT_TEST_RUN }
            : {}),
          ...env,
        },
        timeout: 30_000,
      },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
        resolve({ code, output: `${stdout}${stderr}` });
      },
    );
  });
}

/** Secrets, keys and tokens of this file: none may appear in a log or an output. */
const SECRETS = [
  ...[OLDER, OLD, CURRENT, STRANGER].flatMap((key) => [hex(key), key.toString('base64')]),
  USER_ONE.apiKey,
  USER_TWO.apiKey,
  'interaction-token-',
];

function expectNoSecret(text: string): void {
  for (const secret of SECRETS) expect(text).not.toContain(secret);
}

/** A journalled file request with a usable reply token, for guild `guildId`. */
function pending(id: string, guildId: string): PendingSpeech {
  const now = Date.now();
  return {
    id,
    guildId,
    channelId: '444444444444444444',
    requesterId: '555555555555555555',
    requesterName: 'member',
    output: 'file',
    request: { text: 'x'.repeat(40), voiceId: 'am_2riuownnf', model: 'base' },
    reply: {
      applicationId: 'app',
      token: `interaction-token-${id}`,
      expiresAt: now + INTERACTION_TOKEN_LIFETIME_MS,
    },
    generationId: `base_${id}`,
    submittedAt: now,
    recordedAt: now,
  };
}

/** Seals `apiKey` for `guildId` with `secret`, as a bot on that secret once stored it. */
async function storeKey(
  where: Keyv | Pick<SettingsStore, 'updateGuild'>,
  guildId: string,
  apiKey: string,
  secret: Buffer,
) {
  // A running bot's records go through its own settings store (it keeps them in memory).
  const settings = 'updateGuild' in where ? where : new KeyvSettingsStore(where);
  await settings.updateGuild(guildId, (settings) => ({
    ...settings,
    sealedApiKey: encryptSecret(apiKey, secret, guildId),
  }));
}

/** Sends a /say as the member and resolves with the reply's final state. */
async function say(t: TestBot) {
  const handle = t.discord.slash({
    user: 'member',
    name: 'say',
    options: { text: 'The key of this server was sealed before the rotation.', output: 'file' },
  });
  await handle.waitFor(
    (event) => event.kind === 'edit' && !/⏳|🎙️|📥/.test(JSON.stringify(event)),
    20_000,
  );
  return { files: handle.files(), text: JSON.stringify(handle.lastMessage() ?? {}) };
}

describe('the bot with SECRET_KEY_PREVIOUS', () => {
  let t: TestBot;
  beforeAll(async () => {
    t = await startTestBot({
      env: { SECRET_KEY: hex(CURRENT), SECRET_KEY_PREVIOUS: `${hex(OLDER)},${hex(OLD)}` },
    });
  });
  afterAll(() => t?.stop());

  test('/say with a key sealed under the old secret works, and the record is sealed again with SECRET_KEY', async () => {
    const guildId = t.discord.guild.id;
    await storeKey(t.bot.services.settings, guildId, USER_ONE.apiKey, OLD);
    const spoken = await say(t);
    expect(spoken.files).toHaveLength(1);
    const settings = new KeyvSettingsStore(t.bot.store);
    expect(await new ApiKeyVault(settings, CURRENT).get(guildId)).toBe(USER_ONE.apiKey);
    expect(t.logs.join('\n')).toContain('sealed again with the current SECRET_KEY');
    expectNoSecret(t.logs.join('\n'));
  }, 60_000);
});

describe('on SQLite: a record no secret opens, then npm run secrets:rotate', () => {
  let t: TestBot;
  beforeAll(async () => {
    t = await startTestBot({ env: { SECRET_KEY: hex(CURRENT) } });
  });
  afterAll(() => t?.stop());

  test('the member is refused plainly, the operator is told to set SECRET_KEY_PREVIOUS, and the bot keeps running; after the rotation it works without it', async () => {
    const guildId = t.discord.guild.id;
    const keyv = t.bot.store;
    await storeKey(t.bot.services.settings, guildId, USER_ONE.apiKey, OLD);
    await storeKey(t.bot.services.settings, OTHER_GUILD, USER_TWO.apiKey, CURRENT);
    const old = new PendingJournal(keyv, { secretKey: OLD, clock: systemClock });
    await old.record(pending('sqlite-old', OTHER_GUILD));
    const current = new PendingJournal(keyv, { secretKey: CURRENT, clock: systemClock });
    await current.record(pending('sqlite-current', OTHER_GUILD));

    const refused = await say(t);
    expect(refused.files).toHaveLength(0);
    expect(refused.text).toContain('can no longer be read');
    const logs = t.logs.join('\n');
    expect(logs).toContain("the server's stored API key can't be read");
    expect(logs).toContain('set SECRET_KEY_PREVIOUS');

    const env = { DATA_DIR: t.dataDir, SECRET_KEY: hex(CURRENT) };
    const without = await rotate(env);
    expect(without.code, without.output).toBe(1);
    expect(without.output).toContain('Unopenable:                2');
    expect(without.output).toContain(`API keys of servers ${guildId}`);
    expect(without.output).toContain('SECRET_KEY_PREVIOUS');

    const run = await rotate({ ...env, SECRET_KEY_PREVIOUS: `${hex(STRANGER)}, ${hex(OLD)}` });
    expect(run.code, run.output).toBe(0);
    expect(run.output).toContain('API keys rewritten:        1');
    expect(run.output).toContain('Journal tokens rewritten:  1');
    expect(run.output).toContain('Already current:           2 (1 API keys, 1 journal tokens)');
    expect(run.output).toContain('Unopenable:                0');
    expect(run.output).toContain('SECRET_KEY_PREVIOUS can be removed');

    // The same bot, never given SECRET_KEY_PREVIOUS, now speaks with the server's key: once its
    // copy of the settings is over (the tool is another process; SETTINGS_CACHE_MS bounds that).
    await new Promise((resolve) => setTimeout(resolve, SETTINGS_CACHE_MS));
    const spoken = await say(t);
    expect(spoken.files).toHaveLength(1);
    const tokens = await current.list((id) => id === OTHER_GUILD);
    expect(tokens.map((entry) => entry.reply?.token).sort()).toEqual([
      'interaction-token-sqlite-current',
      'interaction-token-sqlite-old',
    ]);
    for (const text of [without.output, run.output, t.logs.join('\n')]) expectNoSecret(text);
  }, 90_000);
});

describe('on Redis: npm run secrets:rotate', () => {
  let redis: TestRedis;
  let keyv: Keyv;
  let connection: RedisConnection;
  let dataDir: string;
  beforeAll(async () => {
    redis = await startRedis();
    keyv = await openKeyv(redis.url);
    connection = await openRedis(redis.url, () => undefined);
    dataDir = await mkdtemp(join(tmpdir(), 'tts-rotate-'));
  });
  afterAll(async () => {
    await connection?.close();
    await keyv?.disconnect();
    await redis?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  const journal = (secretKey: Buffer) =>
    new PendingJournal(keyv, {
      secretKey,
      clock: systemClock,
      index: new RedisJournalIndex(connection, keyv),
    });

  test('a generated DATA_DIR key and SECRET_KEY_PREVIOUS both rotate to SECRET_KEY; a record no secret opens fails the run, naming SECRET_KEY_PREVIOUS', async () => {
    // The bot ran on a generated key (OLD) before SECRET_KEY was set; OLDER came before that.
    await writeFile(join(dataDir, 'secret.key'), `${hex(OLD)}\n`, { mode: 0o600 });
    await storeKey(keyv, '101', USER_ONE.apiKey, OLD);
    await storeKey(keyv, '102', USER_TWO.apiKey, OLDER);
    await storeKey(keyv, '103', USER_ONE.apiKey, CURRENT);
    await journal(OLD).record(pending('redis-old', '101'));
    await journal(OLDER).record(pending('redis-older', '102'));
    const env = {
      STORE_URL: redis.url,
      DATA_DIR: dataDir,
      SECRET_KEY: hex(CURRENT),
      SECRET_KEY_PREVIOUS: hex(OLDER),
    };

    const run = await rotate(env);
    expect(run.code, run.output).toBe(0);
    expect(run.output).toContain('API keys rewritten:        2');
    expect(run.output).toContain('Journal tokens rewritten:  2');
    expect(run.output).toContain('Already current:           1 (1 API keys, 0 journal tokens)');
    expect(run.output).toContain('Unopenable:                0');
    expect(run.output).toContain('(a generated key) is no longer used');

    const vault = new ApiKeyVault(new KeyvSettingsStore(keyv), CURRENT);
    expect(await vault.get('101')).toBe(USER_ONE.apiKey);
    expect(await vault.get('102')).toBe(USER_TWO.apiKey);
    const tokens = (await journal(CURRENT).list()).map((entry) => entry.reply?.token).sort();
    expect(tokens).toEqual(['interaction-token-redis-old', 'interaction-token-redis-older']);

    await storeKey(keyv, LOST_GUILD, USER_TWO.apiKey, STRANGER);
    const failed = await rotate(env);
    expect(failed.code, failed.output).toBe(1);
    expect(failed.output).toContain('Unopenable:                1');
    expect(failed.output).toContain(`API keys of servers ${LOST_GUILD}`);
    expect(failed.output).toContain('Add the secret they were sealed with to SECRET_KEY_PREVIOUS');
    for (const text of [run.output, failed.output]) expectNoSecret(text);
  }, 60_000);

  test('a malformed SECRET_KEY_PREVIOUS stops the run before the store is touched, naming it', async () => {
    const run = await rotate({
      STORE_URL: redis.url,
      DATA_DIR: dataDir,
      SECRET_KEY: hex(CURRENT),
      SECRET_KEY_PREVIOUS: `${hex(OLD)},not-a-secret-value`,
    });
    expect(run.code).toBe(2);
    expect(run.output).toContain('SECRET_KEY_PREVIOUS entry 2 of the list must be 32 bytes');
    expect(run.output).not.toContain('not-a-secret-value');
    expectNoSecret(run.output);
  }, 30_000);
});
