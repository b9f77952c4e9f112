import type Keyv from 'keyv';
import type { PendingJournal } from '../durable/index.ts';
import type { Logger } from '../log/index.ts';
import type { PreviewCache } from '../preview/index.ts';
import {
  type ApiKeyVault,
  flushDeletions,
  KeyvChatVoices,
  KeyvMemberSettings,
  type KeyvSpeechCacheStore,
  KeyvVoiceAssignments,
  keysUnder,
  type SettingsStore,
  UnreadableKeyError,
  type UsageLedger,
} from '../store/index.ts';
import { keyId, type TtsClients } from '../tts/index.ts';
import type { VoiceService } from '../voice/index.ts';

/** What forgetting a server deleted, for the admin who asked and for the log. */
export interface ForgetReport {
  /** The server's API key (sealed) was stored. */
  readonly apiKey: boolean;
  /** The server's settings record was stored (defaults, limits, reader, dictionary, key). */
  readonly settings: boolean;
  readonly readChannels: number;
  /** Twitch channels the server's reader read. */
  readonly twitchChannels: number;
  /** Voices Twitch chatters chose with `!voice` (one per chatter). */
  readonly twitchVoices: number;
  /** Twitch chatters its moderators muted with `!tts mute`. */
  readonly twitchMuted: number;
  /** Members' own settings in the server (not read, a spoken name), one per member. */
  readonly memberSettings: number;
  readonly dictionaryEntries: number;
  readonly blockedWords: number;
  /** Journalled speech not yet delivered. */
  readonly pendingSpeech: number;
  /** Days of the usage ledger. */
  readonly usageDays: number;
  /** Voice samples made with the server's key. */
  readonly previews: number;
  /** Speech cache entries of the server's key. */
  readonly cachedSpeech: number;
  /**
   * Why the key's samples and cached speech were kept: `shared` (another server stores the same
   * key, and they serve it), `unreadable` (the key cannot be opened with this SECRET_KEY, so its
   * id is unknown; they expire by themselves); undefined when nothing was kept.
   */
  readonly keptKeyRecords: 'shared' | 'unreadable' | undefined;
}

/** What a {@link ForgetService} deletes through: each record kind's own store. */
export interface ForgetDependencies {
  /** The bot's store, to find other servers' records (is the key used elsewhere?). */
  readonly keyv: Keyv;
  readonly settings: Pick<SettingsStore, 'deleteGuild'>;
  readonly apiKeys: Pick<ApiKeyVault, 'get'>;
  /** The bot's one journal (on SQLite its index belongs to that one object). */
  readonly journal: Pick<PendingJournal, 'list' | 'remove'>;
  readonly usage: Pick<UsageLedger, 'forget'>;
  readonly previews: Pick<PreviewCache, 'forgetKey'>;
  readonly speechCache: Pick<KeyvSpeechCacheStore, 'forgetKey'>;
  /** Its chatters' automatic voices; `KeyvVoiceAssignments` over `keyv` when not given. */
  readonly voiceAssignments?: Pick<KeyvVoiceAssignments, 'forget'>;
  /** Its Twitch chatters' `!voice` choices; `KeyvChatVoices` over `keyv` when not given. */
  readonly chosenVoices?: Pick<KeyvChatVoices, 'forget'>;
  /** Its members' own settings; `KeyvMemberSettings` over `keyv` when not given. */
  readonly members?: Pick<KeyvMemberSettings, 'forgetGuild'>;
  /** Its client of the key is dropped (when no other server uses the key). */
  readonly tts: Pick<TtsClients, 'forget'>;
  /** Queued speech of the server stops, as when its key is removed. */
  readonly voice: Pick<VoiceService, 'keyChanged'>;
  readonly logger: Logger;
}

/**
 * Deletes everything the bot stores for one server (issue 20's "forgetting"): the way both
 * `/config forget` and a removal past `DATA_RETENTION` do it. Idempotent: run again (after a
 * crash half-way, or by a second process) it deletes what is left. Records per API key
 * (samples, cached speech) go only when no other server stores the same key: they hold nothing
 * that server could not see at the vendor with that key. Its members' settings in it (not read,
 * spoken names) go too. Kept on purpose: members' voices and languages (`user:<id>`, the same
 * in every server; a member resets theirs with `/myvoice reset`) and the key's rate budgets (request times
 * under its id, expiring within two days; forgetting them would let the key overrun its limits).
 */
export class ForgetService {
  readonly #deps: ForgetDependencies;
  readonly #listeners = new Set<(guildId: string) => void>();

  constructor(deps: ForgetDependencies) {
    this.#deps = deps;
  }

  /**
   * Tells `listener` of each server forgotten, once its records are gone: what the parts built
   * after this service hold of a server in memory goes too (its Twitch reading). Returns a
   * function that stops telling it.
   */
  onForgotten(listener: (guildId: string) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Deletes the server's records now; resolves with what there was. */
  async forgetGuild(guildId: string): Promise<ForgetReport> {
    const deps = this.#deps;
    const { apiKey, unreadable } = await this.#keyOf(guildId);
    let keptKeyRecords: ForgetReport['keptKeyRecords'] = unreadable ? 'unreadable' : undefined;
    let previews = 0;
    let cachedSpeech = 0;
    // The key's records first and the settings (which hold the key) last: a retry after a
    // failure half-way still knows the key.
    if (apiKey !== undefined) {
      const id = keyId(apiKey);
      if (await this.#usedElsewhere(id, guildId)) keptKeyRecords = 'shared';
      else {
        previews = await deps.previews.forgetKey(id);
        cachedSpeech = await deps.speechCache.forgetKey(id);
      }
    }
    const entries = await deps.journal.list((of) => of === guildId);
    for (const entry of entries) await deps.journal.remove(entry.id);
    const usageDays = await deps.usage.forget(guildId);
    await (deps.voiceAssignments ?? new KeyvVoiceAssignments(deps.keyv)).forget(guildId);
    const chosen = await (deps.chosenVoices ?? new KeyvChatVoices(deps.keyv)).forget(guildId);
    const memberSettings = await (deps.members ?? new KeyvMemberSettings(deps.keyv)).forgetGuild(
      guildId,
    );
    const settings = await deps.settings.deleteGuild(guildId);
    if (apiKey !== undefined && keptKeyRecords !== 'shared') deps.tts.forget(apiKey);
    if (settings?.sealedApiKey !== undefined) deps.voice.keyChanged(guildId, 'removed');
    const report: ForgetReport = {
      apiKey: settings?.sealedApiKey !== undefined,
      settings: settings !== undefined,
      readChannels: settings?.reader.channels.length ?? 0,
      twitchChannels: settings?.reader.twitchChannels.length ?? 0,
      twitchVoices: chosen + Object.keys(settings?.twitch.voices ?? {}).length,
      twitchMuted: settings?.twitch.muted.length ?? 0,
      memberSettings,
      dictionaryEntries: settings?.dictionary.length ?? 0,
      blockedWords: settings?.blockedWords.length ?? 0,
      pendingSpeech: entries.length,
      usageDays,
      previews,
      cachedSpeech,
      keptKeyRecords,
    };
    deps.logger.info(
      { guildId, ...(apiKey === undefined ? {} : { keyId: keyId(apiKey) }), deleted: report },
      'forgot a server: its stored data is deleted',
    );
    await this.flushDeletions();
    for (const listener of this.#listeners) {
      try {
        listener(guildId);
      } catch (error) {
        deps.logger.warn({ err: error, guildId }, 'a part could not drop a forgotten server');
      }
    }
    return report;
  }

  /**
   * Makes the deletions final in the store's files (SQLite keeps them in its WAL until a
   * checkpoint, where the server's records stay readable); run after each forgetting and after a
   * removal record goes. A checkpoint that could not complete is retried by the next one.
   */
  async flushDeletions(): Promise<void> {
    if (!(await flushDeletions(this.#deps.keyv)))
      this.#deps.logger.warn('the store could not fold its write-ahead log into the file yet');
  }

  async #keyOf(guildId: string): Promise<{ apiKey: string | undefined; unreadable: boolean }> {
    try {
      return { apiKey: await this.#deps.apiKeys.get(guildId), unreadable: false };
    } catch (error) {
      if (error instanceof UnreadableKeyError) return { apiKey: undefined, unreadable: true };
      throw error;
    }
  }

  /**
   * True when another server stores the key with id `id`. Reads every server's key (one store
   * read and one decryption each): forgetting is rare, and the store keeps no index of keys.
   * Through the vault, the one way to read a key (a v1 record met here is rewritten bound, as
   * any read of it would).
   */
  async #usedElsewhere(id: string, guildId: string): Promise<boolean> {
    for (const key of await keysUnder(this.#deps.keyv, 'guild:')) {
      const other = key.slice('guild:'.length);
      if (other === guildId) continue;
      const { apiKey } = await this.#keyOf(other);
      if (apiKey !== undefined && keyId(apiKey) === id) return true;
    }
    return false;
  }
}
