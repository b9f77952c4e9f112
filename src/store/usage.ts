/**
 * The usage ledger: generations the bot had accepted, per server, per member, per UTC day.
 * The per-member daily share is counted from it, and `/usage` reads today and the last 30 days.
 * On v3 each day also keeps what was billed (integer micro-dollars, tokens) and what merging saved;
 * a server's daily budget is counted from it.
 */
import type Keyv from 'keyv';
import { deleteKeysUnder } from './key-scan.ts';

const DAY_MS = 86_400_000;
/** Days kept: today and the 30 before it, plus one so a late reader still finds the oldest. */
export const USAGE_DAYS_KEPT = 32;

/**
 * The ledger's entry for generations of the chat as a whole: a chat turn that merges several
 * authors' messages is nobody's alone. Member ids are Discord snowflakes, so it cannot clash.
 */
export const CHAT_LEDGER_ID = 'chat';

/** One server's recorded generations on one UTC day. */
export interface DayUsage {
  /** `YYYY-MM-DD`, UTC. */
  readonly day: string;
  readonly total: number;
  /** Generations per member id. */
  readonly members: Readonly<Record<string, number>>;
  /** What the day's generations were billed (v3); absent when none was (v2 bills no money). */
  readonly spend?: DaySpend;
}

/** Money a server spent on one day, in integer micro-dollars (1e-6 USD). */
export interface DaySpend {
  readonly micros: number;
  readonly tokens: number;
  /** What merged chat turns saved: their lines one per generation, less what the turns cost. */
  readonly savedMicros: number;
  /** Micro-dollars per member id (the chat's merged turns under {@link CHAT_LEDGER_ID}). */
  readonly members: Readonly<Record<string, number>>;
}

/** One generation's bill as the ledger records it. */
export interface LedgerBill {
  readonly tokens: number;
  readonly micros: number;
  /** A merged chat turn: what its lines would have cost one per generation, less its own cost. */
  readonly savedMicros?: number;
}

/** The UTC day (`YYYY-MM-DD`) of an instant. */
export function utcDay(at: number): string {
  return new Date(at).toISOString().slice(0, 10);
}

/** The instant the UTC day after the one of `at` begins: when a daily count starts again. */
export function nextUtcDay(at: number): number {
  return (Math.floor(at / DAY_MS) + 1) * DAY_MS;
}

/** `usage` with one more generation by `memberId`, billed `bill` when the API bills money. */
export function addGeneration(usage: DayUsage, memberId: string, bill?: LedgerBill): DayUsage {
  const counted = {
    day: usage.day,
    total: usage.total + 1,
    members: { ...usage.members, [memberId]: (usage.members[memberId] ?? 0) + 1 },
  };
  const spend = bill === undefined ? usage.spend : addBill(usage.spend, memberId, bill);
  return spend === undefined ? counted : { ...counted, spend };
}

function addBill(spend: DaySpend | undefined, memberId: string, bill: LedgerBill): DaySpend {
  const members = spend?.members ?? {};
  return {
    micros: (spend?.micros ?? 0) + bill.micros,
    tokens: (spend?.tokens ?? 0) + bill.tokens,
    savedMicros: (spend?.savedMicros ?? 0) + Math.max(0, bill.savedMicros ?? 0),
    members: { ...members, [memberId]: (members[memberId] ?? 0) + bill.micros },
  };
}

const count = (value: unknown): number =>
  Number.isSafeInteger(value) && (value as number) > 0 ? (value as number) : 0;

/** A stored day's spend, whole non-negative integers only; undefined when it has none. */
function parseSpend(stored: unknown): DaySpend | undefined {
  if (typeof stored !== 'object' || stored === null) return undefined;
  const { micros, tokens, savedMicros, members } = stored as Record<string, unknown>;
  const perMember: Record<string, number> = {};
  if (typeof members === 'object' && members !== null) {
    for (const [id, value] of Object.entries(members))
      if (count(value) > 0) perMember[id] = count(value);
  }
  return {
    micros: count(micros),
    tokens: count(tokens),
    savedMicros: count(savedMicros),
    members: perMember,
  };
}

/** A day nobody used. */
export const emptyDay = (day: string): DayUsage => ({ day, total: 0, members: {} });

/** What a stored day must look like; anything else reads as an empty day. */
function parseDay(day: string, stored: unknown): DayUsage {
  if (typeof stored !== 'object' || stored === null) return emptyDay(day);
  const { total, members } = stored as { total?: unknown; members?: unknown };
  const counts: Record<string, number> = {};
  if (typeof members === 'object' && members !== null) {
    for (const [id, count] of Object.entries(members)) {
      if (Number.isInteger(count) && (count as number) > 0) counts[id] = count as number;
    }
  }
  const sum = Object.values(counts).reduce((a, b) => a + b, 0);
  const spend = parseSpend((stored as { spend?: unknown }).spend);
  return {
    day,
    total: Number.isInteger(total) ? Math.max(total as number, sum) : sum,
    members: counts,
    ...(spend === undefined ? {} : { spend }),
  };
}

/**
 * Where recorded generations are counted. The only way the bot reads or writes them.
 * A server's counts are written by the one process that serves it (a guild lives on one
 * shard), so reads of today are exact in that process.
 */
export interface UsageLedger {
  /**
   * Counts one generation the API accepted for `memberId`, on the UTC day of `at`, with its
   * bill where the API bills money (v3).
   */
  record(guildId: string, memberId: string, at: number, bill?: LedgerBill): Promise<void>;
  /** Loads the server's count of the UTC day of `at`, so {@link UsageLedger.memberToday} can answer. */
  load(guildId: string, at: number): Promise<void>;
  /** Generations by the member on the UTC day of `at`, once loaded; undefined before. */
  memberToday(guildId: string, memberId: string, at: number): number | undefined;
  /**
   * What the server was billed on the UTC day of `at` (micro-dollars and tokens), once loaded;
   * undefined before.
   */
  spentToday(
    guildId: string,
    at: number,
  ): { readonly micros: number; readonly tokens: number } | undefined;
  /** The server's usage per UTC day from `from` to `to` (instants, inclusive), oldest first. */
  days(guildId: string, from: number, to: number): Promise<DayUsage[]>;
  /** Deletes every recorded day of the server (forgetting it); resolves with how many there were. */
  forget(guildId: string): Promise<number>;
}

/** The usage ledger in keyv (SQLite or Redis): one record per server and day, kept 32 days from its last write. */
export class KeyvUsageLedger implements UsageLedger {
  readonly #keyv: Keyv;
  /** Each server's current day, as this process knows it; servers of earlier days are swept out. */
  readonly #today = new Map<string, DayUsage>();
  #sweptDay = '';
  readonly #loading = new Map<string, Promise<DayUsage>>();
  /** Writes in order per server. */
  readonly #writes = new Map<string, Promise<void>>();

  constructor(keyv: Keyv) {
    this.#keyv = keyv;
  }

  async record(guildId: string, memberId: string, at: number, bill?: LedgerBill): Promise<void> {
    const day = this.#sweep(at);
    if (this.#today.get(guildId)?.day !== day) await this.#loadDay(guildId, day);
    const current = this.#today.get(guildId);
    let latest: () => DayUsage;
    if (current?.day === day) {
      const usage = addGeneration(current, memberId, bill);
      this.#today.set(guildId, usage);
      // Each write stores the latest count, so a failed write is repaired by the next one.
      latest = () => {
        const now = this.#today.get(guildId);
        return now?.day === day ? now : usage;
      };
    } else {
      // A generation of a day before the one this process moved on to (around midnight).
      const stored = await this.#keyv.get(this.#key(guildId, day));
      const usage = addGeneration(parseDay(day, stored), memberId, bill);
      latest = () => usage;
    }
    const previous = this.#writes.get(guildId) ?? Promise.resolve();
    const write = previous
      .catch(() => undefined) // that write's caller has its error
      .then(async () => {
        await this.#keyv.set(this.#key(guildId, day), latest(), this.#ttl());
      });
    this.#writes.set(guildId, write);
    const forget = () => {
      if (this.#writes.get(guildId) === write) this.#writes.delete(guildId);
    };
    write.then(forget, forget);
    await write;
  }

  async load(guildId: string, at: number): Promise<void> {
    const day = this.#sweep(at);
    if (this.#today.get(guildId)?.day !== day) await this.#loadDay(guildId, day);
  }

  memberToday(guildId: string, memberId: string, at: number): number | undefined {
    const usage = this.#today.get(guildId);
    return usage?.day === utcDay(at) ? (usage.members[memberId] ?? 0) : undefined;
  }

  spentToday(guildId: string, at: number): { micros: number; tokens: number } | undefined {
    const usage = this.#today.get(guildId);
    if (usage?.day !== utcDay(at)) return undefined;
    return { micros: usage.spend?.micros ?? 0, tokens: usage.spend?.tokens ?? 0 };
  }

  async days(guildId: string, from: number, to: number): Promise<DayUsage[]> {
    const days: string[] = [];
    for (let at = Math.floor(from / DAY_MS) * DAY_MS; at <= to; at += DAY_MS) days.push(utcDay(at));
    return Promise.all(
      days.map(async (day) => {
        const cached = this.#today.get(guildId);
        if (cached?.day === day) return cached;
        return parseDay(day, await this.#keyv.get(this.#key(guildId, day)));
      }),
    );
  }

  async forget(guildId: string): Promise<number> {
    // A write under way would bring the day back after the delete: let it land first.
    await this.#writes.get(guildId)?.catch(() => undefined); // its caller has the error
    this.#today.delete(guildId);
    return deleteKeysUnder(this.#keyv, `usage:${guildId}:`);
  }

  // Reads the day once even when several callers ask at the same time.
  #loadDay(guildId: string, day: string): Promise<DayUsage> {
    const key = `${guildId}:${day}`;
    let loading = this.#loading.get(key);
    if (loading === undefined) {
      loading = this.#keyv.get(this.#key(guildId, day)).then((stored: unknown) => {
        const current = this.#today.get(guildId);
        if (current?.day === day) return current; // recorded meanwhile
        const usage = parseDay(day, stored);
        if (current === undefined || current.day < day) this.#today.set(guildId, usage);
        return usage;
      });
      this.#loading.set(key, loading);
      void loading.then(
        () => this.#loading.delete(key),
        () => this.#loading.delete(key),
      );
    }
    return loading;
  }

  // Once a day, forgets the servers whose cached day is over, so the cache holds only today's.
  #sweep(at: number): string {
    const day = utcDay(at);
    if (day > this.#sweptDay) {
      this.#sweptDay = day;
      for (const [guildId, usage] of this.#today) if (usage.day < day) this.#today.delete(guildId);
    }
    return day;
  }

  /** Servers whose current day is held in memory. */
  get cachedServers(): number {
    return this.#today.size;
  }

  #key(guildId: string, day: string): string {
    return `usage:${guildId}:${day}`;
  }

  #ttl(): number {
    return USAGE_DAYS_KEPT * DAY_MS;
  }
}
