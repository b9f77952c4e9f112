import { createCipheriv, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, test } from 'vitest';
import {
  ApiKeyVault,
  ASSIGNMENT_KEPT_MS,
  KeyvBudgetJournal,
  KeyvSettingsStore,
  KeyvVoiceAssignments,
  migrateLegacyApiKeys,
  openKeyv,
  openRedis,
  redactUrl,
  StoreUnavailableError,
  UnreadableKeyError,
} from '../../src/store/index.ts';
import { freePort, startRedis, type TestRedis } from '../support/redis.ts';

let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});

test('STORE_URL redis:// keeps settings, encrypted keys and budgets in Redis', async () => {
  const keyv = await openKeyv(redis.url);
  const settings = new KeyvSettingsStore(keyv);
  const vault = new ApiKeyVault(settings, Buffer.alloc(32, 5));
  await vault.set('42', 'adx_redis_secret_key_1234');
  await settings.setUser('7', { voiceId: 'am_2riuownnf' });
  await new KeyvBudgetJournal(keyv).save('k:generate', [1, 2]);
  await keyv.disconnect();

  const again = await openKeyv(redis.url);
  const raw = JSON.stringify(await again.get('guild:42'));
  expect(raw).not.toContain('adx_redis_secret_key_1234');
  expect(await new ApiKeyVault(new KeyvSettingsStore(again), Buffer.alloc(32, 5)).get('42')).toBe(
    'adx_redis_secret_key_1234',
  );
  expect(await new KeyvSettingsStore(again).user('7')).toEqual({ voiceId: 'am_2riuownnf' });
  expect(await new KeyvBudgetJournal(again).load('k:generate')).toEqual([1, 2]);
  await again.disconnect();
});

test('two shards claiming one chatter’s first voice at once on Redis: one voice is kept, with its life', async () => {
  const [a, b] = await Promise.all([openKeyv(redis.url), openKeyv(redis.url)]);
  const claims = await Promise.all([
    new KeyvVoiceAssignments(a).claim('g-claim', 'c1', { voiceId: 'va', at: 1 }),
    new KeyvVoiceAssignments(b).claim('g-claim', 'c1', { voiceId: 'vb', at: 2 }),
  ]);
  const stored = await new KeyvVoiceAssignments(a).get('g-claim', 'c1');
  expect(claims.map((claim) => claim.voiceId)).toEqual([stored?.voiceId, stored?.voiceId]);
  const client = await openRedis(redis.url, () => undefined);
  const life = await client.eval(
    "local keys = redis.call('KEYS', ARGV[1]) if #keys ~= 1 then return -9 end return redis.call('PTTL', keys[1])",
    { keys: [], arguments: ['*voices:g-claim:c1'] },
  );
  expect(Number(life)).toBeGreaterThan(ASSIGNMENT_KEPT_MS - 60_000);
  await client.close();
  await Promise.all([a.disconnect(), b.disconnect()]);
});

test('Redis going away: operations fail at once with StoreUnavailableError, and work again when it is back', async () => {
  const local = await startRedis();
  const keyv = await openKeyv(local.url);
  const errors: unknown[] = [];
  keyv.on('error', (error: unknown) => errors.push(error));
  const settings = new KeyvSettingsStore(keyv);
  await settings.setUser('7', { voiceId: 'am_2riuownnf' });
  await local.stop('SIGKILL');
  await expect(settings.user('7')).rejects.toBeInstanceOf(StoreUnavailableError);
  await expect(settings.setUser('8', {})).rejects.toBeInstanceOf(StoreUnavailableError);
  const back = await startRedis(local.port);
  let recovered = false;
  for (let attempt = 0; attempt < 100 && !recovered; attempt++) {
    recovered = await settings.setUser('9', { voiceId: 'af_3kbq21leo' }).then(
      () => true,
      () => new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 100)),
    );
  }
  expect(recovered).toBe(true);
  expect(await settings.user('9')).toEqual({ voiceId: 'af_3kbq21leo' });
  await keyv.disconnect();
  await back.stop();
});

test.each([
  ['redis://:hunter2@127.0.0.1:6379', 'redis://:***@127.0.0.1:6379'],
  ['rediss://user:hunter2@cache.internal:6380/1', 'rediss://user:***@cache.internal:6380/1'],
  ['redis://127.0.0.1:6379', 'redis://127.0.0.1:6379'],
  ['not a url hunter2', 'the configured address'],
])('redactUrl(%s) hides the password', (url, expected) => {
  expect(redactUrl(url)).toBe(expected);
});

test('openRedis rejects an unreachable Redis without its password, and answers ping when reachable', async () => {
  const port = await freePort();
  const error = await openRedis(`redis://:hunter2@127.0.0.1:${port}`, () => undefined).catch(
    (caught: unknown) => caught,
  );
  expect(String(error)).toContain('is unreachable');
  expect(String(error)).not.toContain('hunter2');
  const redisClient = await openRedis(redis.url, () => undefined);
  expect(await redisClient.ping()).toBe('PONG');
  await redisClient.close();
});

test('on Redis too, the start-up migration finds every v1 key record and re-seals it once', async () => {
  const secretKey = Buffer.alloc(32, 6);
  const legacySeal = (plaintext: string): string => {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', secretKey, iv);
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `v1:${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64')}`;
  };
  const keyv = await openKeyv(redis.url, 'migration-test');
  const settings = new KeyvSettingsStore(keyv);
  const vault = new ApiKeyVault(settings, secretKey);
  const ids = Array.from({ length: 30 }, (_, index) => String(900 + index));
  for (const id of ids) await settings.setGuild(id, { sealedApiKey: legacySeal(`adx_r_${id}`) });
  await settings.setUser('900', { voiceId: 'v' });
  await expect(vault.get('900')).rejects.toBeInstanceOf(UnreadableKeyError);
  expect(await migrateLegacyApiKeys(keyv, settings, vault)).toEqual({
    resealed: ids.length,
    unreadable: 0,
  });
  for (const id of ids) expect(await vault.get(id)).toBe(`adx_r_${id}`);
  expect(await migrateLegacyApiKeys(keyv, settings, vault)).toBe('done before');
  await keyv.disconnect();
});
