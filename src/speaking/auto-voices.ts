/**
 * A server's automatic voices over time: the assignment table kept in memory (a server is
 * served by one process) and written to the store when a chatter's voice changes, so voices
 * survive restarts. The choice itself is `assignVoice`'s.
 */
import type { Logger } from '../log/index.ts';
import type { StoredAssignment } from '../store/index.ts';
import { type AssignmentTable, assignVoice } from './voice-assignment.ts';

/** Where tables are kept between runs (`KeyvVoiceAssignments`). */
export interface AssignmentStore {
  load(guildId: string): Promise<readonly StoredAssignment[]>;
  save(guildId: string, table: readonly StoredAssignment[]): Promise<void>;
}

/** Gives chatters their automatic voice, one server at a time. */
export class AutoVoices {
  readonly #store: AssignmentStore | undefined;
  readonly #logger: Logger;
  readonly #tables = new Map<string, AssignmentTable>();
  readonly #chains = new Map<string, Promise<unknown>>();

  constructor(store: AssignmentStore | undefined, logger: Logger) {
    this.#store = store;
    this.#logger = logger;
  }

  /** The voice of `chatter` among `voiceIds` (sorted), now active in the server; undefined without voices. */
  voiceFor(
    guildId: string,
    chatter: string,
    voiceIds: readonly string[],
  ): Promise<string | undefined> {
    const previous = this.#chains.get(guildId) ?? Promise.resolve();
    const next = previous.then(
      () => this.#assign(guildId, chatter, voiceIds),
      () => this.#assign(guildId, chatter, voiceIds),
    );
    this.#chains.set(guildId, next);
    // The caller sees a failure through `next`; this only forgets the finished chain.
    const forget = (): void => {
      if (this.#chains.get(guildId) === next) this.#chains.delete(guildId);
    };
    next.then(forget, forget);
    return next;
  }

  /**
   * Drops the server's table (the server was forgotten: its stored table is gone), after an
   * assignment under way, so a table once forgotten is never written back from memory.
   */
  forget(guildId: string): Promise<void> {
    const previous = this.#chains.get(guildId) ?? Promise.resolve();
    const next = previous.then(
      () => void this.#tables.delete(guildId),
      () => void this.#tables.delete(guildId),
    );
    this.#chains.set(guildId, next);
    const done = (): void => {
      if (this.#chains.get(guildId) === next) this.#chains.delete(guildId);
    };
    next.then(done, done);
    return next;
  }

  async #assign(
    guildId: string,
    chatter: string,
    voiceIds: readonly string[],
  ): Promise<string | undefined> {
    const table = this.#tables.get(guildId) ?? (await this.#load(guildId));
    const before = table.find((entry) => entry.chatter === chatter)?.voiceId;
    const result = assignVoice(table, chatter, voiceIds);
    if (result === undefined) return undefined;
    this.#tables.set(guildId, result.table);
    if (result.voiceId !== before && this.#store !== undefined) {
      // A failed write costs only stability after a restart; the voice is given anyway.
      await this.#store.save(guildId, result.table).catch((error: unknown) => {
        this.#logger.warn({ err: error, guildId }, 'could not store automatic voices');
      });
    }
    return result.voiceId;
  }

  async #load(guildId: string): Promise<AssignmentTable> {
    if (this.#store === undefined) return [];
    try {
      return await this.#store.load(guildId);
    } catch (error) {
      this.#logger.warn(
        { err: error, guildId },
        'could not read automatic voices; starting afresh',
      );
      return [];
    }
  }
}
