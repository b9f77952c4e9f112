/**
 * A server's automatic voices over time: each chatter's voice stored in the bot's store on its
 * first assignment and never moved after (see `voice-assignment.ts` for the rule and the pool),
 * so it is the same across messages, restarts and shards for as long as the store keeps it
 * (`ASSIGNMENT_KEPT_MS` after the chatter was last seen). Memory holds a bounded cache of the
 * voices seen and each server's last few active chatters, for spreading new ones.
 */
import type { Logger } from '../log/index.ts';
import type { StoredAssignment } from '../store/index.ts';
import { firstVoice } from './voice-assignment.ts';

/** Where voices are kept between runs (`KeyvVoiceAssignments`). */
export interface AssignmentStore {
  get(guildId: string, chatter: string): Promise<StoredAssignment | undefined>;
  set(guildId: string, chatter: string, assignment: StoredAssignment): Promise<void>;
  /**
   * Stores a first voice only if the chatter has none yet; the voice they have after (see
   * `KeyvVoiceAssignments.claim`). `set` is used when absent.
   */
  claim?(guildId: string, chatter: string, assignment: StoredAssignment): Promise<StoredAssignment>;
}

/** Most voices cached in memory across servers (the store holds them all). */
export const CACHED_VOICES = 10_000;
/** Active chatters remembered per server for spreading new ones (more than any pool). */
const RECENT_CHATTERS = 64;
/** A stored voice in use is written again after this long, so its record lives on. */
const REFRESH_MS = 86_400_000;

/** Gives chatters their automatic voice, one server at a time. */
export class AutoVoices {
  readonly #store: AssignmentStore | undefined;
  readonly #logger: Logger;
  readonly #now: () => number;
  /** `guild\nchatter` → voice, least recently used first. */
  readonly #known = new Map<string, StoredAssignment>();
  /** Per server, its last active chatters and their voices, most recent first. */
  readonly #recent = new Map<string, { chatter: string; voiceId: string }[]>();
  readonly #chains = new Map<string, Promise<unknown>>();

  constructor(
    store: AssignmentStore | undefined,
    logger: Logger,
    clock: { now(): number } = { now: () => Date.now() },
  ) {
    this.#store = store;
    this.#logger = logger;
    this.#now = () => clock.now();
  }

  /** The voice of `chatter` among `voiceIds` (sorted), now active in the server; undefined without voices. */
  voiceFor(
    guildId: string,
    chatter: string,
    voiceIds: readonly string[],
  ): Promise<string | undefined> {
    return this.#chained(guildId, () => this.#assign(guildId, chatter, voiceIds));
  }

  /**
   * Drops what memory holds of the server (it was forgotten: its stored voices are gone), after
   * an assignment under way, so a voice once forgotten is never given again from memory.
   */
  forget(guildId: string): Promise<void> {
    return this.#chained(guildId, () => {
      this.#recent.delete(guildId);
      for (const key of this.#known.keys()) {
        if (key.startsWith(`${guildId}\n`)) this.#known.delete(key);
      }
    });
  }

  #chained<T>(guildId: string, run: () => T | Promise<T>): Promise<T> {
    const previous = this.#chains.get(guildId) ?? Promise.resolve();
    const next = previous.then(run, run);
    this.#chains.set(guildId, next);
    // The caller sees a failure through `next`; this only forgets the finished chain.
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
    const pool = new Set(voiceIds);
    const key = `${guildId}\n${chatter}`;
    let known = this.#known.get(key);
    let readable = true;
    if (known === undefined && this.#store !== undefined) {
      try {
        known = await this.#store.get(guildId, chatter);
      } catch (error) {
        readable = false;
        this.#logger.warn({ err: error, guildId }, 'could not read an automatic voice');
      }
    }
    const now = this.#now();
    let assignment: StoredAssignment;
    if (known !== undefined && pool.has(known.voiceId)) {
      assignment = now - known.at >= REFRESH_MS ? { voiceId: known.voiceId, at: now } : known;
    } else {
      // A voice that left the pool is replaced: the one way a chatter's voice changes.
      const recent = (this.#recent.get(guildId) ?? [])
        .filter((entry) => entry.chatter !== chatter && pool.has(entry.voiceId))
        .map((entry) => entry.voiceId);
      const voiceId = firstVoice(chatter, voiceIds, recent);
      if (voiceId === undefined) return undefined;
      assignment = { voiceId, at: now };
    }
    // Not stored when the read failed: that would overwrite the voice the chatter may have.
    const store = this.#store;
    if (assignment !== known && readable && store !== undefined) {
      // A first voice is claimed: another shard (or turn) may be giving the chatter one now.
      const write =
        known === undefined && store.claim !== undefined
          ? store.claim(guildId, chatter, assignment)
          : store.set(guildId, chatter, assignment).then(() => assignment);
      // A failed write costs only stability after a restart; the voice is given anyway.
      assignment =
        (await write.catch((error: unknown) => {
          this.#logger.warn({ err: error, guildId }, 'could not store an automatic voice');
          return undefined;
        })) ?? assignment;
      if (!pool.has(assignment.voiceId)) return this.#assign(guildId, chatter, voiceIds);
    }
    if (readable) this.#remember(key, assignment);
    this.#active(guildId, chatter, assignment.voiceId);
    return assignment.voiceId;
  }

  #remember(key: string, assignment: StoredAssignment): void {
    this.#known.delete(key);
    this.#known.set(key, assignment);
    if (this.#known.size > CACHED_VOICES) {
      const [oldest] = this.#known.keys();
      if (oldest !== undefined) this.#known.delete(oldest);
    }
  }

  #active(guildId: string, chatter: string, voiceId: string): void {
    const recent = (this.#recent.get(guildId) ?? []).filter((entry) => entry.chatter !== chatter);
    recent.unshift({ chatter, voiceId });
    this.#recent.set(guildId, recent.slice(0, RECENT_CHATTERS));
  }
}
