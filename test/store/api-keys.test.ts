import { createCipheriv, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ApiKeyVault, isLegacySecret, KeyvSettingsStore, openKeyv } from '../../src/store/index.ts';
import { startTestBot } from '../support/bot-harness.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tts-keys-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const SECRET_KEY = Buffer.alloc(32, 4);

/** A key sealed as the bot did before records were bound to their guild (`v1`, no AAD). */
function legacySeal(plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', SECRET_KEY, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return `v1:${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64')}`;
}

test('the bot re-seals v1 key records when it starts, before it logs in', async () => {
  const storeUrl = `sqlite://${join(dir, 'bot.sqlite')}`;
  const before = await openKeyv(storeUrl);
  await new KeyvSettingsStore(before).setGuild('123', { sealedApiKey: legacySeal('adx_v1_key') });
  await before.disconnect();

  const testBot = await startTestBot({
    env: { STORE_URL: storeUrl, SECRET_KEY: SECRET_KEY.toString('hex') },
  });
  try {
    const migrated = testBot.logs.findIndex((line) => line.includes('re-sealed'));
    const loggedIn = testBot.logs.findIndex((line) => line.includes('bot is ready'));
    expect(migrated).toBeGreaterThanOrEqual(0);
    expect(migrated).toBeLessThan(loggedIn);
    expect(testBot.logs.join('\n')).not.toContain('adx_v1_key');
  } finally {
    await testBot.stop();
  }

  const after = await openKeyv(storeUrl);
  const settings = new KeyvSettingsStore(after);
  expect(isLegacySecret((await settings.guild('123')).sealedApiKey ?? '')).toBe(false);
  expect(await new ApiKeyVault(settings, SECRET_KEY).get('123')).toBe('adx_v1_key');
  await after.disconnect();
});
