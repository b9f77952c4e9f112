import type Keyv from 'keyv';
import type { Logger } from '../log/index.ts';
import { onlyKey, openWithAny, type SecretKeys, UNOPENABLE_HINT } from './keyring.ts';
import { decryptSecret, encryptSecret, isLegacySecret, openLegacySecret } from './secrets.ts';
import type { SettingsStore } from './settings.ts';

/**
 * A stored key that no configured secret opens: SECRET_KEY changed without the old one in
 * SECRET_KEY_PREVIOUS, the data folder's key was lost, or the record belongs to another guild.
 */
export class UnreadableKeyError extends Error {
  override readonly name = 'UnreadableKeyError';

  constructor(guildId: string, options: ErrorOptions) {
    super(
      `the stored API key of guild ${guildId} cannot be opened with SECRET_KEY or SECRET_KEY_PREVIOUS: ${UNOPENABLE_HINT}, or have an admin set it again with /config api-key`,
      options,
    );
  }
}

/** How a server's stored key came out of {@link ApiKeyVault.reseal}. */
export type ResealOutcome = 'resealed' | 'current' | 'unreadable';

/** Each server's own API key, encrypted at rest. The only way to read or change a stored key. */
export class ApiKeyVault {
  readonly #settings: SettingsStore;
  readonly #keys: SecretKeys;
  readonly #logger: Logger | undefined;
  /** Guilds whose unreadable key was already reported, so a busy server logs it once. */
  readonly #reported = new Set<string>();

  /** `keys`: the secret that seals, and those of before a rotation that may still open. */
  constructor(settings: SettingsStore, keys: SecretKeys | Buffer, logger?: Logger) {
    this.#settings = settings;
    this.#keys = Buffer.isBuffer(keys) ? onlyKey(keys) : keys;
    this.#logger = logger;
  }

  /**
   * The server's key in clear, or undefined when none is configured. A key sealed with a
   * previous secret is sealed again with the current one first. Throws
   * {@link UnreadableKeyError} when no secret opens it, it belongs to another guild, or it is in
   * the `v1` format the start did not re-seal.
   */
  async get(guildId: string): Promise<string | undefined> {
    const { sealedApiKey } = await this.#settings.guild(guildId);
    if (sealedApiKey === undefined) return undefined;
    let opened: { plaintext: string; stale: boolean };
    try {
      opened = openWithAny(this.#keys, (key) => decryptSecret(sealedApiKey, key, guildId));
    } catch (error) {
      throw this.#unreadable(guildId, error);
    }
    if (opened.stale) await this.#sealAgain(guildId, sealedApiKey, opened.plaintext);
    return opened.plaintext;
  }

  /**
   * Seals the server's key with the current secret when it is not already: sealed with a
   * previous secret, or a `v1` record (from before binding). 'unreadable' when no secret opens
   * it (it is left as it is), undefined when the server has no key.
   */
  async reseal(guildId: string): Promise<ResealOutcome | undefined> {
    const { sealedApiKey } = await this.#settings.guild(guildId);
    if (sealedApiKey === undefined) return undefined;
    const legacy = isLegacySecret(sealedApiKey);
    let opened: { plaintext: string; stale: boolean };
    try {
      opened = openWithAny(this.#keys, (key) =>
        legacy ? openLegacySecret(sealedApiKey, key) : decryptSecret(sealedApiKey, key, guildId),
      );
    } catch (error) {
      this.#unreadable(guildId, error);
      return 'unreadable';
    }
    if (!legacy && !opened.stale) return 'current';
    await this.#sealAgain(guildId, sealedApiKey, opened.plaintext);
    return 'resealed';
  }

  /** {@link reseal} for `v1` records only (the migration at start); others count as current. */
  async resealLegacy(guildId: string): Promise<ResealOutcome> {
    const { sealedApiKey } = await this.#settings.guild(guildId);
    if (sealedApiKey === undefined || !isLegacySecret(sealedApiKey)) return 'current';
    return (await this.reseal(guildId)) ?? 'current';
  }

  /**
   * Writes `plaintext` sealed with the current secret, under the store's per-server lock and
   * only if the record is still `sealed` (a key set meanwhile is never overwritten).
   */
  async #sealAgain(guildId: string, sealed: string, plaintext: string): Promise<void> {
    const resealed = encryptSecret(plaintext, this.#keys.current, guildId);
    let written = false;
    await this.#settings.updateGuild(guildId, (settings) => {
      written = settings.sealedApiKey === sealed;
      return written ? { ...settings, sealedApiKey: resealed } : settings;
    });
    if (written)
      this.#logger?.info({ guildId }, 'stored API key sealed again with the current SECRET_KEY');
  }

  /** The error for a key no secret opens, told to the operator once per guild with what to set. */
  #unreadable(guildId: string, cause: unknown): UnreadableKeyError {
    const error = new UnreadableKeyError(guildId, { cause });
    if (!this.#reported.has(guildId)) {
      this.#reported.add(guildId);
      this.#logger?.warn(
        { guildId },
        `the server's stored API key can't be read: ${error.message}`,
      );
    }
    return error;
  }

  /**
   * Stores the server's key, encrypted. Like every change here, it goes through the store's
   * per-server lock, so a settings change at the same moment is never lost.
   */
  async set(guildId: string, apiKey: string): Promise<void> {
    this.#reported.delete(guildId);
    await this.#settings.updateGuild(guildId, (settings) => ({
      ...settings,
      sealedApiKey: encryptSecret(apiKey, this.#keys.current, guildId),
    }));
  }

  /** Forgets the key; true when there was one. */
  async remove(guildId: string): Promise<boolean> {
    let had = false;
    await this.#settings.updateGuild(guildId, ({ sealedApiKey, ...rest }) => {
      had = sealedApiKey !== undefined;
      return rest;
    });
    return had;
  }
}

/** Set once every `v1` key record was re-sealed: later starts skip the scan. */
export const LEGACY_KEYS_MIGRATED = 'migrations:api-keys-v2';

/**
 * Re-seals every stored API key still in the `v1` format, once (the first start after an
 * upgrade lists the guild records; the mark spares later starts). From then on `v1` is
 * refused. A record that does not open with this secret key is left and counted, and the
 * mark is not set, so a start with the right SECRET_KEY migrates it.
 */
export async function migrateLegacyApiKeys(
  keyv: Keyv,
  settings: SettingsStore,
  vault: ApiKeyVault,
): Promise<{ resealed: number; unreadable: number } | 'done before'> {
  if ((await keyv.get(LEGACY_KEYS_MIGRATED)) !== undefined) return 'done before';
  const counts = { resealed: 0, unreadable: 0, current: 0 };
  for await (const guildId of settings.guildIds()) counts[await vault.resealLegacy(guildId)]++;
  if (counts.unreadable === 0) await keyv.set(LEGACY_KEYS_MIGRATED, new Date().toISOString());
  return { resealed: counts.resealed, unreadable: counts.unreadable };
}

/** What {@link resealApiKeys} did, by record; `unreadableGuilds` are the servers to look at. */
export interface ApiKeyRotation {
  readonly resealed: number;
  readonly current: number;
  readonly unreadable: number;
  readonly unreadableGuilds: readonly string[];
}

/**
 * Seals every stored API key with the current secret (`npm run secrets:rotate`): those sealed
 * with a previous secret or in the `v1` format are rewritten, each under the per-server lock.
 */
export async function resealApiKeys(
  settings: SettingsStore,
  vault: ApiKeyVault,
): Promise<ApiKeyRotation> {
  const counts = { resealed: 0, current: 0, unreadable: 0 };
  const unreadableGuilds: string[] = [];
  for await (const guildId of settings.guildIds()) {
    const outcome = await vault.reseal(guildId);
    if (outcome === undefined) continue;
    counts[outcome]++;
    if (outcome === 'unreadable') unreadableGuilds.push(guildId);
  }
  return { ...counts, unreadableGuilds };
}
