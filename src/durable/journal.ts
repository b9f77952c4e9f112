import { isDeepStrictEqual } from 'node:util';
import type Keyv from 'keyv';
import type { Logger } from '../log/index.ts';
import { type SecretKeys, UNOPENABLE_HINT } from '../store/index.ts';
import type { Clock } from '../tts/index.ts';
import { type JournalIndex, KeyvJournalIndex } from './journal-index.ts';
import { GENERATION_LIFETIME_MS, type PendingSpeech, pendingSpeechSchema } from './pending.ts';
import { openEntry, sealEntry, storedPendingSchema } from './sealed.ts';

/** How long an entry is kept after it was last recorded: a generation id's 24 hours, and a day. */
const KEEP_MS = 2 * GENERATION_LIFETIME_MS;

/** What a {@link PendingJournal} needs besides its store. */
export interface PendingJournalOptions {
  /** The bot's secret key (`SECRET_KEY`), which seals each reply's interaction token. */
  readonly secretKey: Buffer;
  /** Secrets of before a rotation (`SECRET_KEY_PREVIOUS`): tokens they open are sealed again. */
  readonly previousSecretKeys?: readonly Buffer[];
  /** Tells when a token can no longer be used, so it is not kept. */
  readonly clock: Clock;
  /** Hears about tokens that did not open (another SECRET_KEY); those results go to the channel. */
  readonly logger?: Logger;
  /**
   * The ids of pending entries: a {@link RedisJournalIndex} when processes share the store, else
   * (the default) a {@link KeyvJournalIndex} owned by this journal.
   */
  readonly index?: JournalIndex | undefined;
}

/**
 * Pending speech in the store: each request under `pending:<id>`, and its id in a
 * {@link JournalIndex} (keyv cannot list keys on every backend). Entries outlive a
 * generation id's 24 hours by a day at most, so a forgotten one cannot linger.
 * Interaction tokens are sealed at rest and bound to their entry (`sealed.ts`);
 * the only way pending speech reaches the store. Writes run one at a time in call order, so
 * a removal never overtakes the record before it; the index keeps other processes' ids.
 */
export class PendingJournal {
  readonly #keyv: Keyv;
  readonly #options: PendingJournalOptions;
  readonly #index: JournalIndex;
  #chain: Promise<unknown> = Promise.resolve();

  constructor(keyv: Keyv, options: PendingJournalOptions) {
    this.#keyv = keyv;
    this.#options = options;
    this.#index = options.index ?? new KeyvJournalIndex(keyv);
  }

  /** Records (or replaces) an entry; resolves once the store has it. */
  async record(entry: PendingSpeech): Promise<void> {
    const parsed = pendingSpeechSchema.parse(entry) as PendingSpeech;
    await this.#write(async () => {
      // The entry first: an id in the index always has had an entry.
      await this.#keyv.set(`pending:${entry.id}`, this.#seal(parsed), KEEP_MS);
      await this.#index.add(entry.id);
    });
  }

  /** Forgets an entry (delivered, or ended for good). */
  async remove(id: string): Promise<void> {
    await this.#write(async () => {
      // The entry first: an id left in the index (the store failed between) points at nothing.
      await this.#keyv.delete(`pending:${id}`);
      await this.#index.remove([id]);
    });
  }

  /**
   * Every pending entry of the guilds `owns` accepts (default: all), oldest record first;
   * entries that expired or cannot be read are dropped. A token an earlier version stored in
   * clear is sealed in the store as it is read (only in owned entries: another shard may be
   * writing the others).
   */
  async list(owns: (guildId: string) => boolean = () => true): Promise<PendingSpeech[]> {
    const ids = await this.#index.ids();
    const found: PendingSpeech[] = [];
    const missing: string[] = [];
    const now = this.#options.clock.now();
    for (const id of ids) {
      const raw: unknown = await this.#keyv.get(`pending:${id}`);
      const parsed = storedPendingSchema.safeParse(raw);
      if (!parsed.success) {
        missing.push(id);
        continue;
      }
      if (!owns(parsed.data.guildId)) continue;
      const { entry, rewrite, unreadable } = openEntry(parsed.data, this.#keys(), now);
      if (unreadable) {
        this.#options.logger?.warn(
          { pendingId: id },
          `the reply token of pending speech cannot be opened with SECRET_KEY or SECRET_KEY_PREVIOUS; the result goes to the channel (${UNOPENABLE_HINT})`,
        );
      }
      if (rewrite) await this.#rewrite(id, raw, entry);
      found.push(entry);
    }
    if (missing.length > 0) await this.#index.remove(missing);
    return found.sort((a, b) => a.recordedAt - b.recordedAt);
  }

  /**
   * Seals every journalled reply token with the current secret (`npm run secrets:rotate`): those
   * in clear, sealed with a previous secret or expired are rewritten (an expired one is left
   * out). Counts entries that carry a token; every guild's, whichever process serves it.
   */
  async reseal(): Promise<{ rewritten: number; current: number; unreadable: number }> {
    const counts = { rewritten: 0, current: 0, unreadable: 0 };
    const now = this.#options.clock.now();
    for (const id of await this.#index.ids()) {
      const raw: unknown = await this.#keyv.get(`pending:${id}`);
      const parsed = storedPendingSchema.safeParse(raw);
      if (!parsed.success || parsed.data.reply === undefined) continue;
      const { entry, rewrite, unreadable } = openEntry(parsed.data, this.#keys(), now);
      if (unreadable) counts.unreadable++;
      else if (rewrite) {
        await this.#rewrite(id, raw, entry);
        counts.rewritten++;
      } else counts.current++;
    }
    return counts;
  }

  #keys(): SecretKeys {
    return { current: this.#options.secretKey, previous: this.#options.previousSecretKeys ?? [] };
  }

  /** Writes `entry` as it is stored now, unless the stored value changed since it was read as `raw`. */
  async #rewrite(id: string, raw: unknown, entry: PendingSpeech): Promise<void> {
    await this.#write(async () => {
      if (!isDeepStrictEqual(await this.#keyv.get(`pending:${id}`), raw)) return;
      const left = entry.recordedAt + KEEP_MS - this.#options.clock.now();
      if (left <= 0) await this.#keyv.delete(`pending:${id}`);
      else await this.#keyv.set(`pending:${id}`, this.#seal(entry), left);
    });
  }

  #seal(entry: PendingSpeech): unknown {
    return sealEntry(entry, this.#options.secretKey, this.#options.clock.now());
  }

  #write(run: () => Promise<void>): Promise<void> {
    const next = this.#chain.then(run);
    // A failed write fails its caller; the chain goes on for the next one.
    this.#chain = next.catch(() => undefined);
    return next;
  }
}
