/** v3 generation records: the status machine, expiry after 24 h, history and their JSON views. */
import { isoSeconds } from '../store.ts';
import type { V3Model } from './catalog.ts';

/** Live states of a v3 generation; `EXPIRED` is only ever shown in history. */
export type V3Status = 'IN_QUEUE' | 'GENERATING' | 'COMPLETED' | 'FAILED';
/** Every status `GET /v3/history` can show or filter on. */
export type V3HistoryStatus = V3Status | 'EXPIRED';
/** The `status` values `GET /v3/history` accepts, in life-cycle order. */
export const V3_HISTORY_STATUSES: readonly V3HistoryStatus[] = [
  'IN_QUEUE',
  'GENERATING',
  'COMPLETED',
  'FAILED',
  'EXPIRED',
];

/** One v3 generation as the emulator keeps it. */
export interface V3Generation {
  id: string;
  userId: string;
  status: V3Status;
  /** Every status it has had, in order, starting with `IN_QUEUE`. */
  transitions: V3Status[];
  via: 'http' | 'stream';
  text: string;
  voiceId: string;
  voiceName: string;
  model: V3Model;
  format: 'wav' | 'mp3';
  /** The `language_code` asked for (checked against the model's codes); absent: the model's default. */
  languageCode?: string;
  tokens: number;
  dollarCost: number;
  /** Credits reserved on the shared balance, given back if it fails. */
  credits: number;
  method: 'CREDITS_BALANCE' | null;
  createdAt: number;
  startedAt?: number;
  completedAt?: number;
  errorMessage?: string;
  /**
   * A stream only: when its `completed` frame went to a client still listening, so the whole
   * speech reached it (a client that hung up first, as the bot does with a turn made again, never gets it).
   */
  deliveredAt?: number;
  audio?: Buffer;
}

const MOVES: Readonly<Record<V3Status, readonly V3Status[]>> = {
  IN_QUEUE: ['GENERATING', 'FAILED'],
  GENERATING: ['COMPLETED', 'FAILED'],
  COMPLETED: [],
  FAILED: [],
};

/** The one way a generation changes state; stamps times and refuses impossible moves. */
export function transition(gen: V3Generation, next: V3Status, now: number): void {
  if (!MOVES[gen.status].includes(next)) throw new Error(`${gen.status} cannot become ${next}`);
  gen.status = next;
  gen.transitions.push(next);
  if (next === 'GENERATING') {
    gen.startedAt = now;
    gen.method = 'CREDITS_BALANCE';
  } else {
    gen.completedAt = now;
  }
}

/** Billable tokens: `ceil(max(30, characters) / 4)`, so at least 8 (`guides/pricing.mdx`). */
export function tokensFor(chars: number): number {
  return Math.ceil(Math.max(30, chars) / 4);
}

const iso = (ms: number | undefined): string | null => (ms === undefined ? null : isoSeconds(ms));

/** The body of `POST /v3/tts` and `GET /v3/tts`. */
export function recordView(gen: V3Generation, audioUrl: string | null): Record<string, unknown> {
  return {
    generation_id: gen.id,
    status: gen.status,
    input_text: gen.text,
    voice_id: gen.voiceId,
    voice_name: gen.voiceName,
    model: gen.model,
    tokens: gen.tokens,
    dollar_cost: gen.dollarCost,
    method: gen.method,
    audio_url: audioUrl,
    error_message: gen.errorMessage ?? null,
    created_at: isoSeconds(gen.createdAt),
    started_at: iso(gen.startedAt),
    completed_at: iso(gen.completedAt),
  };
}

/** One `GET /v3/history` row: no text, error or start and end times. */
export function historyView(
  gen: V3Generation,
  shown: V3HistoryStatus,
  audioUrl: string | null,
): Record<string, unknown> {
  return {
    generation_id: gen.id,
    status: shown,
    voice_id: gen.voiceId,
    voice_name: gen.voiceName,
    model: gen.model,
    tokens: gen.tokens,
    dollar_cost: gen.dollarCost,
    method: gen.method,
    audio_url: audioUrl,
    created_at: isoSeconds(gen.createdAt),
  };
}

/** All v3 generations; an id answers for `retentionMs`, history keeps it as `EXPIRED`. */
export class V3Store {
  readonly #byId = new Map<string, V3Generation>();
  readonly #retentionMs: number;
  readonly #now: () => number;

  constructor(retentionMs: number, now: () => number) {
    this.#retentionMs = retentionMs;
    this.#now = now;
  }

  /** Adds a new generation. */
  add(gen: V3Generation): void {
    this.#byId.set(gen.id, gen);
  }

  /** A generation whose id has not expired. */
  get(id: string): V3Generation | undefined {
    const gen = this.#byId.get(id);
    return gen && !this.expired(gen) ? gen : undefined;
  }

  /** A generation by id even once expired, for tests. */
  snapshot(id: string): V3Generation | undefined {
    return this.#byId.get(id);
  }

  /** Whether an id is past its 24 h (its audio is then dropped). */
  expired(gen: V3Generation): boolean {
    const expired = this.#now() - gen.createdAt >= this.#retentionMs;
    if (expired) delete gen.audio;
    return expired;
  }

  /** How a generation shows in history. */
  shownStatus(gen: V3Generation): V3HistoryStatus {
    return this.expired(gen) ? 'EXPIRED' : gen.status;
  }

  /** A user's generations, newest first, optionally of one shown status. */
  historyOf(userId: string, status?: V3HistoryStatus): V3Generation[] {
    const mine = [...this.#byId.values()].filter((g) => g.userId === userId).reverse();
    return status === undefined ? mine : mine.filter((g) => this.shownStatus(g) === status);
  }

  /** Generations of a user in progress (queued or generating, streams included). */
  activeOf(userId: string): number {
    let count = 0;
    for (const gen of this.#byId.values()) {
      const running = gen.status === 'IN_QUEUE' || gen.status === 'GENERATING';
      if (gen.userId === userId && running && !this.expired(gen)) count += 1;
    }
    return count;
  }
}
