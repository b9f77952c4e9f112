import { createCipheriv, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import {
  ApiKeyVault,
  decryptSecret,
  encryptSecret,
  isLegacySecret,
  KeyvBudgetJournal,
  KeyvSettingsStore,
  LEGACY_KEYS_MIGRATED,
  loadSecretKey,
  migrateLegacyApiKeys,
  openKeyv,
  resealLegacySecret,
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

/** A key sealed as the bot did before records were bound to their guild (`v1`, no AAD). */
function legacySeal(plaintext: string, key: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return `v1:${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64')}`;
}

describe('secrets', () => {
  test('round trip, random IV, tamper detection', () => {
    const key = Buffer.alloc(32, 7);
    const a = encryptSecret('adx_secret', key, '1');
    expect(a).not.toBe(encryptSecret('adx_secret', key, '1'));
    expect(decryptSecret(a, key, '1')).toBe('adx_secret');
    expect(() => decryptSecret(a, Buffer.alloc(32, 8), '1')).toThrow();
    expect(() => decryptSecret(`${a.slice(0, -4)}AAAA`, key, '1')).toThrow();
  });

  test('a sealed secret is bound to its guild: another guild id cannot open it', () => {
    const key = Buffer.alloc(32, 7);
    const sealed = encryptSecret('adx_secret', key, '111111111111111111');
    expect(() => decryptSecret(sealed, key, '222222222222222222')).toThrow();
    expect(() => decryptSecret(sealed, key, '11111111111111111')).toThrow();
  });

  test('a record with a shortened (4-byte) authentication tag is refused', () => {
    // Only 2^32 tries to forge: GCM must be told to expect the full 16-byte tag.
    const key = Buffer.alloc(32, 7);
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: 4 });
    cipher.setAAD(Buffer.from('guild:1'));
    const ciphertext = Buffer.concat([cipher.update('', 'utf8'), cipher.final()]);
    const forged = `v2:${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64')}`;
    expect(() => decryptSecret(forged, key, '1')).toThrow();
  });

  test('a v1 record (not bound to a guild) is refused, in any guild; only the migration re-seals it', () => {
    const key = Buffer.alloc(32, 7);
    const legacy = legacySeal('adx_secret', key);
    for (const guildId of ['1', '2'])
      expect(() => decryptSecret(legacy, key, guildId)).toThrow(/v1/);
    expect(isLegacySecret(legacy)).toBe(true);
    const resealed = resealLegacySecret(legacy, key, '1');
    expect(isLegacySecret(resealed)).toBe(false);
    expect(decryptSecret(resealed, key, '1')).toBe('adx_secret');
    expect(() => decryptSecret(resealed, key, '2')).toThrow();
    expect(() => resealLegacySecret(resealed, key, '1')).toThrow(/not a v1/);
    expect(() => resealLegacySecret(legacy, Buffer.alloc(32, 8), '1')).toThrow();
  });

  test('a secret.key file that is not 64 hex characters, or is all zeros, stops the start', async () => {
    await mkdir(join(dir, 'data'));
    for (const content of ['00'.repeat(32), `${'ab'.repeat(31)}zz`, 'ab'.repeat(31)]) {
      await writeFile(join(dir, 'data', 'secret.key'), `${content}\n`);
      await expect(loadSecretKey(undefined, join(dir, 'data'), silent)).rejects.toThrow(
        /secret\.key/,
      );
    }
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

  test('a key record in the v1 format is refused by the vault: read, it is unreadable, not opened', async () => {
    const keyv = await openKeyv(`sqlite://${join(dir, 'm.sqlite')}`);
    const settings = new KeyvSettingsStore(keyv);
    const secretKey = Buffer.alloc(32, 5);
    await settings.setGuild('1', { sealedApiKey: legacySeal('adx_old_format_key_777', secretKey) });
    // Copied to another guild, it would open there too: that is why the format is refused.
    await settings.setGuild('2', await settings.guild('1'));
    const vault = new ApiKeyVault(settings, secretKey);
    for (const guildId of ['1', '2']) {
      await expect(vault.get(guildId)).rejects.toBeInstanceOf(UnreadableKeyError);
    }
    await keyv.disconnect();
  });

  test('the start-up migration re-seals every v1 key record once, bound to its guild', async () => {
    const file = join(dir, 'data', 'mig.sqlite');
    const keyv = await openKeyv(`sqlite://${file}`);
    const settings = new KeyvSettingsStore(keyv);
    const secretKey = Buffer.alloc(32, 5);
    const vault = new ApiKeyVault(settings, secretKey);
    for (const id of ['11', '12', '13']) {
      await settings.setGuild(id, {
        sealedApiKey: legacySeal(`adx_old_key_${id}`, secretKey),
        defaults: { voiceId: `voice_${id}` },
      });
    }
    await vault.set('20', 'adx_new_key_20');
    const current = (await settings.guild('20')).sealedApiKey;
    await settings.setGuild('30', { defaults: {} });
    await settings.setUser('11', { voiceId: 'user_voice' });
    await keyv.set('pending:index', ['x']);

    expect(await migrateLegacyApiKeys(keyv, settings, vault)).toEqual({
      resealed: 3,
      unreadable: 0,
    });
    for (const id of ['11', '12', '13']) {
      const { sealedApiKey, defaults } = await settings.guild(id);
      expect(isLegacySecret(sealedApiKey ?? '')).toBe(false);
      expect(defaults).toEqual({ voiceId: `voice_${id}` });
      expect(await vault.get(id)).toBe(`adx_old_key_${id}`);
    }
    expect((await settings.guild('20')).sealedApiKey).toBe(current);
    expect((await settings.guild('30')).sealedApiKey).toBeUndefined();
    expect(await keyv.get(LEGACY_KEYS_MIGRATED)).toEqual(expect.any(String));
    await keyv.disconnect();

    // Once: a later start (the same file reopened) does not scan again, and v1 stays refused.
    const reopened = await openKeyv(`sqlite://${file}`);
    const later = new KeyvSettingsStore(reopened);
    await later.setGuild('14', { sealedApiKey: legacySeal('adx_old_key_14', secretKey) });
    const laterVault = new ApiKeyVault(later, secretKey);
    expect(await migrateLegacyApiKeys(reopened, later, laterVault)).toBe('done before');
    await expect(laterVault.get('14')).rejects.toBeInstanceOf(UnreadableKeyError);
    await reopened.disconnect();
  });

  test('a v1 record another SECRET_KEY sealed is left and counted, and the migration runs again next start', async () => {
    const keyv = await openKeyv(`sqlite://${join(dir, 'other.sqlite')}`);
    const settings = new KeyvSettingsStore(keyv);
    const sealed = legacySeal('adx_other_key_1', Buffer.alloc(32, 9));
    await settings.setGuild('1', { sealedApiKey: sealed });
    const vault = new ApiKeyVault(settings, Buffer.alloc(32, 5));
    expect(await migrateLegacyApiKeys(keyv, settings, vault)).toEqual({
      resealed: 0,
      unreadable: 1,
    });
    expect((await settings.guild('1')).sealedApiKey).toBe(sealed);
    expect(await keyv.get(LEGACY_KEYS_MIGRATED)).toBeUndefined();
    const right = new ApiKeyVault(settings, Buffer.alloc(32, 9));
    expect(await migrateLegacyApiKeys(keyv, settings, right)).toEqual({
      resealed: 1,
      unreadable: 0,
    });
    expect(await right.get('1')).toBe('adx_other_key_1');
    await keyv.disconnect();
  });

  test('a key record copied to another guild cannot be read there', async () => {
    const keyv = await openKeyv(`sqlite://${join(dir, 'c.sqlite')}`);
    const settings = new KeyvSettingsStore(keyv);
    const vault = new ApiKeyVault(settings, Buffer.alloc(32, 5));
    await vault.set('1', 'adx_guild_one_key_123');
    await settings.setGuild('2', await settings.guild('1'));
    const error = await vault.get('2').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnreadableKeyError);
    expect(String(error)).not.toContain('adx_guild_one_key_123');
    expect(await vault.get('1')).toBe('adx_guild_one_key_123');
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

  test('updateGuild serialises changes per server, so none is lost, and keeps reader defaults', async () => {
    const keyv = await openKeyv(`sqlite://${join(dir, 'u.sqlite')}`);
    const settings = new KeyvSettingsStore(keyv);
    await Promise.all(
      ['1', '2', '3', '4', '5'].map((id) =>
        settings.updateGuild('1', (guild) => ({
          ...guild,
          reader: { ...guild.reader, channels: [...guild.reader.channels, id] },
        })),
      ),
    );
    const guild = await settings.guild('1');
    expect(guild.reader.channels).toEqual(['1', '2', '3', '4', '5']);
    expect(guild.reader.maxAgeMs).toBe(60_000);
    expect(guild.dictionary).toEqual([]);
    await expect(
      settings.updateGuild('1', (g) => ({ ...g, reader: { ...g.reader, maxLength: 5 } })),
    ).rejects.toThrow();
    expect((await settings.guild('1')).reader.channels).toHaveLength(5);
    await keyv.disconnect();
  });

  test('setting or removing the key at the same moment as another settings change loses neither', async () => {
    const keyv = await openKeyv(`sqlite://${join(dir, 'race.sqlite')}`);
    const settings = new KeyvSettingsStore(keyv);
    const vault = new ApiKeyVault(settings, Buffer.alloc(32, 4));
    const addChannel = (id: string) =>
      settings.updateGuild('1', (guild) => ({
        ...guild,
        reader: { ...guild.reader, channels: [...guild.reader.channels, id] },
      }));
    await Promise.all([addChannel('10'), vault.set('1', 'adx_race_key_one'), addChannel('11')]);
    expect(await vault.get('1')).toBe('adx_race_key_one');
    expect((await settings.guild('1')).reader.channels).toEqual(['10', '11']);
    const [, removed] = await Promise.all([addChannel('12'), vault.remove('1'), addChannel('13')]);
    expect(removed).toBe(true);
    expect(await vault.get('1')).toBeUndefined();
    expect((await settings.guild('1')).reader.channels).toEqual(['10', '11', '12', '13']);
    expect(await vault.remove('1')).toBe(false);
    await keyv.disconnect();
  });
});
