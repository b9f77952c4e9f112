import type Keyv from 'keyv';
import { decryptSecret, encryptSecret, isLegacySecret, resealLegacySecret } from './secrets.ts';
import type { SettingsStore } from './settings.ts';

/** A stored key that cannot be decrypted: SECRET_KEY changed, the data folder's key was lost, or the record belongs to another guild. */
export class UnreadableKeyError extends Error {
  override readonly name = 'UnreadableKeyError';

  constructor(guildId: string, options: ErrorOptions) {
    super(
      `the stored API key of guild ${guildId} cannot be decrypted with the current SECRET_KEY`,
      options,
    );
  }
}

/** How a server's stored key came out of {@link ApiKeyVault.resealLegacy}. */
export type ResealOutcome = 'resealed' | 'current' | 'unreadable';

/** Each server's own API key, encrypted at rest. The only way to read or change a stored key. */
export class ApiKeyVault {
  readonly #settings: SettingsStore;
  readonly #secretKey: Buffer;

  constructor(settings: SettingsStore, secretKey: Buffer) {
    this.#settings = settings;
    this.#secretKey = secretKey;
  }

  /**
   * The server's key in clear, or undefined when none is configured. Throws
   * {@link UnreadableKeyError} when it was sealed with another secret key, for
   * another guild, or in the `v1` format the start did not re-seal.
   */
  async get(guildId: string): Promise<string | undefined> {
    const { sealedApiKey } = await this.#settings.guild(guildId);
    if (sealedApiKey === undefined) return undefined;
    try {
      return decryptSecret(sealedApiKey, this.#secretKey, guildId);
    } catch (error) {
      throw new UnreadableKeyError(guildId, { cause: error });
    }
  }

  /**
   * Re-seals the server's key bound to its guild when it is still a `v1` record (from before
   * binding), under the store's per-server lock and only if it did not change meanwhile.
   * 'unreadable' when it does not open with this secret key (it is left as it is).
   */
  async resealLegacy(guildId: string): Promise<ResealOutcome> {
    const { sealedApiKey } = await this.#settings.guild(guildId);
    if (sealedApiKey === undefined || !isLegacySecret(sealedApiKey)) return 'current';
    let resealed: string;
    try {
      resealed = resealLegacySecret(sealedApiKey, this.#secretKey, guildId);
    } catch {
      return 'unreadable';
    }
    await this.#settings.updateGuild(guildId, (settings) =>
      settings.sealedApiKey === sealedApiKey ? { ...settings, sealedApiKey: resealed } : settings,
    );
    return 'resealed';
  }

  /**
   * Stores the server's key, encrypted. Like every change here, it goes through the store's
   * per-server lock, so a settings change at the same moment is never lost.
   */
  async set(guildId: string, apiKey: string): Promise<void> {
    await this.#settings.updateGuild(guildId, (settings) => ({
      ...settings,
      sealedApiKey: encryptSecret(apiKey, this.#secretKey, guildId),
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
