/**
 * Rotating SECRET_KEY (issue 20): records sealed with a previous secret still open, are sealed
 * again with the current one on first read (through the per-server lock), and a record no
 * secret opens is a typed error naming SECRET_KEY_PREVIOUS, never a secret.
 */
import { createCipheriv, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Keyv from 'keyv';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  ApiKeyVault,
  decryptSecret,
  encryptSecret,
  type GuildSettings,
  type GuildSettingsInput,
  KeyvSettingsStore,
  loadSecretKeys,
  NoSecretOpensError,
  openBound,
  openWithAny,
  resealApiKeys,
  sealBound,
  UnreadableKeyError,
} from '../../src/store/index.ts';

const OLD = Buffer.alloc(32, 0x11);
const OLDER = Buffer.alloc(32, 0x22);
const CURRENT = Buffer.alloc(32, 0x33);
const STRANGER = Buffer.alloc(32, 0x44);
const SECRETS = [OLD, OLDER, CURRENT, STRANGER].flatMap((key) => [
  key.toString('hex'),
  key.toString('base64'),
]);

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tts-keyring-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** A settings store that counts updates, so a test sees writes go through the per-server lock. */
class CountingSettings extends KeyvSettingsStore {
  updates = 0;

  override updateGuild(
    guildId: string,
    change: (settings: GuildSettings) => GuildSettingsInput,
  ): Promise<GuildSettings> {
    this.updates++;
    return super.updateGuild(guildId, change);
  }
}

/** A logger whose JSON lines land in `lines`. */
function capture(): { logger: pino.Logger; lines: string[] } {
  const lines: string[] = [];
  return { logger: pino({ level: 'debug' }, { write: (line: string) => lines.push(line) }), lines };
}

describe('openWithAny', () => {
  const sealed = sealBound('plain', OLD, 'ctx');
  const open = (key: Buffer) => openBound(sealed, key, 'ctx');

  test.each([
    ['the current secret', false, { current: OLD, previous: [] }],
    ['a previous secret', true, { current: CURRENT, previous: [OLDER, OLD] }],
  ])('opens with %s (stale: %s)', (_name, stale, keys) => {
    expect(openWithAny(keys, open)).toEqual({ plaintext: 'plain', stale });
  });

  test('no secret opens it: a typed error', () => {
    expect(() => openWithAny({ current: CURRENT, previous: [STRANGER] }, open)).toThrow(
      NoSecretOpensError,
    );
  });
});

describe('ApiKeyVault with previous secrets', () => {
  test('a key sealed with a previous secret opens, and is sealed again with the current one under updateGuild', async () => {
    const settings = new CountingSettings(new Keyv());
    await settings.setGuild('7', {
      sealedApiKey: encryptSecret('adx_rotated_key_7', OLD, '7'),
      defaults: { voiceId: 'am_2riuownnf' },
    });
    const { logger, lines } = capture();
    const vault = new ApiKeyVault(settings, { current: CURRENT, previous: [OLDER, OLD] }, logger);

    expect(await vault.get('7')).toBe('adx_rotated_key_7');
    expect(settings.updates).toBe(1);
    const { sealedApiKey, defaults } = await settings.guild('7');
    expect(decryptSecret(sealedApiKey ?? '', CURRENT, '7')).toBe('adx_rotated_key_7');
    expect(defaults).toEqual({ voiceId: 'am_2riuownnf' });
    // Current now: the current secret alone opens it, and a second read writes nothing.
    expect(await new ApiKeyVault(settings, CURRENT).get('7')).toBe('adx_rotated_key_7');
    expect(await vault.get('7')).toBe('adx_rotated_key_7');
    expect(settings.updates).toBe(1);
    expect(lines.join('\n')).toContain('sealed again with the current SECRET_KEY');
    for (const secret of [...SECRETS, 'adx_rotated_key_7'])
      expect(lines.join('\n')).not.toContain(secret);
  });

  test('a key set while the re-seal waits for the lock is kept (the re-seal writes only over what it read)', async () => {
    const settings = new KeyvSettingsStore(new Keyv());
    await settings.setGuild('8', { sealedApiKey: encryptSecret('adx_old_key_8', OLD, '8') });
    const vault = new ApiKeyVault(settings, { current: CURRENT, previous: [OLD] });
    const reading = vault.get('8');
    await vault.set('8', 'adx_new_key_8');
    expect(await reading).toBe('adx_old_key_8');
    expect(await vault.get('8')).toBe('adx_new_key_8');
  });

  test('a key no secret opens: UnreadableKeyError naming SECRET_KEY_PREVIOUS, told to the operator once, no secret anywhere', async () => {
    const settings = new KeyvSettingsStore(new Keyv());
    await settings.setGuild('9', { sealedApiKey: encryptSecret('adx_lost_key_9', STRANGER, '9') });
    const { logger, lines } = capture();
    const vault = new ApiKeyVault(settings, { current: CURRENT, previous: [OLD] }, logger);
    const errors = [await vault.get('9').catch((e: unknown) => e)];
    errors.push(await vault.get('9').catch((e: unknown) => e));
    for (const error of errors) {
      expect(error).toBeInstanceOf(UnreadableKeyError);
      expect(String(error)).toContain('SECRET_KEY_PREVIOUS');
    }
    const warnings = lines.filter((line) => line.includes('"level":40'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("the server's stored API key can't be read");
    expect(warnings[0]).toContain('set SECRET_KEY_PREVIOUS');
    for (const secret of [...SECRETS, 'adx_lost_key_9']) {
      expect(lines.join('\n')).not.toContain(secret);
      expect(errors.map(String).join('\n')).not.toContain(secret);
    }
  });

  test('resealApiKeys: previous-secret and v1 records rewritten, current ones left, unopenable ones named', async () => {
    const settings = new KeyvSettingsStore(new Keyv());
    await settings.setGuild('1', { sealedApiKey: encryptSecret('adx_key_1', OLD, '1') });
    await settings.setGuild('2', { sealedApiKey: encryptSecret('adx_key_2', OLDER, '2') });
    await settings.setGuild('3', { sealedApiKey: encryptSecret('adx_key_3', CURRENT, '3') });
    await settings.setGuild('4', { sealedApiKey: legacySeal('adx_key_4', OLD) });
    await settings.setGuild('5', { sealedApiKey: encryptSecret('adx_key_5', STRANGER, '5') });
    await settings.setGuild('6', { defaults: {} });
    const before3 = (await settings.guild('3')).sealedApiKey;
    const vault = new ApiKeyVault(settings, { current: CURRENT, previous: [OLD, OLDER] });

    expect(await resealApiKeys(settings, vault)).toEqual({
      resealed: 3,
      current: 1,
      unreadable: 1,
      unreadableGuilds: ['5'],
    });
    const currentOnly = new ApiKeyVault(settings, CURRENT);
    for (const id of ['1', '2', '3', '4']) expect(await currentOnly.get(id)).toBe(`adx_key_${id}`);
    expect((await settings.guild('3')).sealedApiKey).toBe(before3);
    await expect(currentOnly.get('5')).rejects.toBeInstanceOf(UnreadableKeyError);
    expect(await resealApiKeys(settings, vault)).toMatchObject({ resealed: 0, current: 4 });
  });
});

describe('loadSecretKeys', () => {
  const quiet = pino({ level: 'silent' });

  test('SECRET_KEY set while the data folder keeps a generated key: that key is tried as a previous one', async () => {
    const dataDir = await mkdtemp(join(dir, 'generated-'));
    await writeFile(join(dataDir, 'secret.key'), `${OLD.toString('hex')}\n`);
    const keys = await loadSecretKeys(
      { secretKey: CURRENT, previousSecretKeys: [OLDER, CURRENT, OLDER], dataDir },
      quiet,
    );
    expect(keys).toEqual({ current: CURRENT, previous: [OLDER, OLD] });
  });

  test('SECRET_KEY unset: the generated key is current, and SECRET_KEY_PREVIOUS still opens', async () => {
    const dataDir = await mkdtemp(join(dir, 'unset-'));
    const keys = await loadSecretKeys(
      { secretKey: undefined, previousSecretKeys: [OLD], dataDir },
      quiet,
    );
    const saved = Buffer.from((await readFile(join(dataDir, 'secret.key'), 'utf8')).trim(), 'hex');
    expect(keys).toEqual({ current: saved, previous: [OLD] });
  });

  test('create: false (the rotate script) refuses to invent a key, naming SECRET_KEY', async () => {
    const dataDir = join(dir, 'nothing-here');
    await expect(
      loadSecretKeys({ secretKey: undefined, previousSecretKeys: [], dataDir }, quiet, {
        create: false,
      }),
    ).rejects.toThrow(/SECRET_KEY is not set/);
  });
});

/** A key sealed as the bot did before records were bound to their guild (`v1`, no AAD). */
function legacySeal(plaintext: string, key: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return `v1:${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64')}`;
}
