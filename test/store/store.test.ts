import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import {
  ApiKeyVault,
  decryptSecret,
  encryptSecret,
  KeyvBudgetJournal,
  KeyvSettingsStore,
  loadSecretKey,
  openKeyv,
  UnreadableKeyError,
} from '../../src/store/index.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tts-store-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const silent = pino({ level: 'silent' });

describe('secrets', () => {
  test('round trip, random IV, tamper detection', () => {
    const key = Buffer.alloc(32, 7);
    const a = encryptSecret('adx_secret', key);
    expect(a).not.toBe(encryptSecret('adx_secret', key));
    expect(decryptSecret(a, key)).toBe('adx_secret');
    expect(() => decryptSecret(a, Buffer.alloc(32, 8))).toThrow();
    expect(() => decryptSecret(`${a.slice(0, -4)}AAAA`, key)).toThrow();
  });

  test('a generated secret key is owner-only and reused on the next start', async () => {
    const warnings: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => warnings.push(line) });
    const first = await loadSecretKey(undefined, join(dir, 'data'), logger);
    const second = await loadSecretKey(undefined, join(dir, 'data'), silent);
    expect(second.equals(first)).toBe(true);
    expect((await stat(join(dir, 'data', 'secret.key'))).mode & 0o777).toBe(0o600);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('SECRET_KEY is not set');
    expect(warnings[0]).not.toContain(first.toString('hex'));
  });

  test('a configured SECRET_KEY is used as is and nothing is written', async () => {
    const key = Buffer.alloc(32, 1);
    expect(await loadSecretKey(key, join(dir, 'data'), silent)).toBe(key);
    await expect(readdir(dir)).resolves.toEqual([]);
  });
});

describe('SQLite store', () => {
  test('the stored API key is not readable in the store file', async () => {
    const file = join(dir, 'data', 'bot.sqlite');
    const keyv = await openKeyv(`sqlite://${file}`);
    const vault = new ApiKeyVault(new KeyvSettingsStore(keyv), Buffer.alloc(32, 3));
    const apiKey = 'adx_live_key_do_not_leak_4242';
    await vault.set('1', apiKey);
    expect(await vault.get('1')).toBe(apiKey);
    await keyv.disconnect();
    const bytes = await readFile(file);
    expect(bytes.includes(Buffer.from(apiKey))).toBe(false);
    expect(bytes.includes(Buffer.from('live_key'))).toBe(false);

    const reopened = await openKeyv(`sqlite://${file}`);
    const again = new ApiKeyVault(new KeyvSettingsStore(reopened), Buffer.alloc(32, 3));
    expect(await again.get('1')).toBe(apiKey);
    expect(await again.remove('1')).toBe(true);
    expect(await again.get('1')).toBeUndefined();
    expect(await again.remove('1')).toBe(false);
    await reopened.disconnect();
  });

  test('a key sealed with another secret key is reported as unreadable, not as missing', async () => {
    const keyv = await openKeyv(`sqlite://${join(dir, 'u.sqlite')}`);
    await new ApiKeyVault(new KeyvSettingsStore(keyv), Buffer.alloc(32, 1)).set(
      '1',
      'adx_k_123456789',
    );
    const other = new ApiKeyVault(new KeyvSettingsStore(keyv), Buffer.alloc(32, 2));
    const error = await other.get('1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnreadableKeyError);
    expect(String(error)).not.toContain('adx_k_123456789');
    await keyv.disconnect();
  });

  test('a failing store throws instead of reporting a lost write as saved', async () => {
    const keyv = await openKeyv(`sqlite://${join(dir, 'f.sqlite')}`);
    await keyv.disconnect();
    const vault = new ApiKeyVault(new KeyvSettingsStore(keyv), Buffer.alloc(32, 1));
    await expect(vault.set('1', 'adx_k_123456789')).rejects.toThrow();
  });

  test('settings are validated and keep defaults beside the key', async () => {
    const keyv = await openKeyv(`sqlite://${join(dir, 's.sqlite')}`);
    const settings = new KeyvSettingsStore(keyv);
    await settings.setGuild('1', { defaults: { voiceId: 'am_x', model: 'advance', speed: 1.5 } });
    const vault = new ApiKeyVault(settings, Buffer.alloc(32, 3));
    await vault.set('1', 'adx_k');
    expect((await settings.guild('1')).defaults).toEqual({
      voiceId: 'am_x',
      model: 'advance',
      speed: 1.5,
    });
    await expect(settings.setGuild('1', { defaults: { speed: 9 } })).rejects.toThrow();
    expect(await settings.user('9')).toEqual({});
    await settings.setUser('9', { voiceId: 'bf_y' });
    expect(await settings.user('9')).toEqual({ voiceId: 'bf_y' });
    const journal = new KeyvBudgetJournal(keyv);
    await journal.save('k:generate', [1, 2, 3]);
    expect(await journal.load('k:generate')).toEqual([1, 2, 3]);
    expect(await journal.load('other')).toBeUndefined();
    await keyv.disconnect();
  });
});
