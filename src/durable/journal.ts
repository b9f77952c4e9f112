import type Keyv from 'keyv';
import { GENERATION_LIFETIME_MS, type PendingSpeech, pendingSpeechSchema } from './pending.ts';

const INDEX = 'pending:index';

/**
 * Pending speech in the store: each request under `pending:<id>`, and an index
 * of ids (keyv cannot list keys on every backend). Entries outlive a
 * generation id's 24 hours by a day at most, so a forgotten one cannot linger.
 * Writes run one at a time in call order, so concurrent records and removals
 * in this process never lose one another.
 */
export class PendingJournal {
  readonly #keyv: Keyv;
  #chain: Promise<unknown> = Promise.resolve();

  constructor(keyv: Keyv) {
    this.#keyv = keyv;
  }

  /** Records (or replaces) an entry; resolves once the store has it. */
  async record(entry: PendingSpeech): Promise<void> {
    const parsed = pendingSpeechSchema.parse(entry);
    await this.#write(async () => {
      await this.#keyv.set(`pending:${entry.id}`, parsed, 2 * GENERATION_LIFETIME_MS);
      await this.#editIndex((ids) => (ids.includes(entry.id) ? ids : [...ids, entry.id]));
    });
  }

  /** Forgets an entry (delivered, or ended for good). */
  async remove(id: string): Promise<void> {
    await this.#write(async () => {
      await this.#editIndex((ids) => ids.filter((known) => known !== id));
      await this.#keyv.delete(`pending:${id}`);
    });
  }

  /** Every pending entry, oldest record first; entries that expired or cannot be read are dropped. */
  async list(): Promise<PendingSpeech[]> {
    const ids = await this.#ids();
    const found: PendingSpeech[] = [];
    const missing: string[] = [];
    for (const id of ids) {
      const parsed = pendingSpeechSchema.safeParse(await this.#keyv.get(`pending:${id}`));
      if (parsed.success) found.push(parsed.data as PendingSpeech);
      else missing.push(id);
    }
    if (missing.length > 0)
      await this.#editIndex((all) => all.filter((id) => !missing.includes(id)));
    return found.sort((a, b) => a.recordedAt - b.recordedAt);
  }

  async #ids(): Promise<string[]> {
    const saved: unknown = await this.#keyv.get(INDEX);
    return Array.isArray(saved) ? saved.filter((id): id is string => typeof id === 'string') : [];
  }

  async #editIndex(edit: (ids: string[]) => string[]): Promise<void> {
    await this.#keyv.set(INDEX, edit(await this.#ids()));
  }

  #write(run: () => Promise<void>): Promise<void> {
    const next = this.#chain.then(run);
    // A failed write fails its caller; the chain goes on for the next one.
    this.#chain = next.catch(() => undefined);
    return next;
  }
}
