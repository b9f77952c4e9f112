import { decryptSecret, encryptSecret, type OpenedSecret } from './secrets.ts';
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
   * {@link UnreadableKeyError} when it was sealed with another secret key or for
   * another guild. A record from before guild binding is rewritten bound.
   */
  async get(guildId: string): Promise<string | undefined> {
    const { sealedApiKey } = await this.#settings.guild(guildId);
    if (sealedApiKey === undefined) return undefined;
    let opened: OpenedSecret;
    try {
      opened = decryptSecret(sealedApiKey, this.#secretKey, guildId);
    } catch (error) {
      throw new UnreadableKeyError(guildId, { cause: error });
    }
    if (opened.legacy) await this.#migrate(guildId, sealedApiKey, opened.plaintext);
    return opened.plaintext;
  }

  // Re-seals a v1 record bound to its guild, unless it changed since it was read.
  async #migrate(guildId: string, sealed: string, apiKey: string): Promise<void> {
    await this.#settings.updateGuild(guildId, (settings) =>
      settings.sealedApiKey === sealed
        ? { ...settings, sealedApiKey: encryptSecret(apiKey, this.#secretKey, guildId) }
        : settings,
    );
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
