import { randomUUID } from 'node:crypto';
import {
  type BudgetStore,
  horizonOf,
  type Limit,
  type Limits,
  type LimitUsage,
  type Take,
  usageOf,
  windowWithMargin,
} from '../tts/index.ts';
import type { Operation } from '../tts/types.ts';
import { withTimeout } from './guard.ts';
import type { RedisConnection } from './redis.ts';
import { RESTAMP_SCRIPT, RedisScript, TAKE_SCRIPT } from './redis-scripts.ts';

/**
 * Longest wait for one budget command. A connected Redis that stops answering (paused,
 * swapping, a network partition without a reset) holds a command for ever otherwise, and every
 * TTS request of the key with it; the client's own command timeout ends only at the socket write.
 */
const COMMAND_TIMEOUT_MS = 2000;

/**
 * Per-key budgets shared by every process that uses one Redis: each key and
 * operation is a sorted set of request times, and take-or-wait and restamp
 * are Lua scripts, so two processes can never both take the last unit. The
 * arithmetic is {@link MemoryBudgetStore}'s, unit for unit. Times come from
 * each caller's clock: hosts sharing a Redis must agree on the time to well
 * within the windows' margin (2 %, 1.2 s on a minute), as NTP keeps them.
 * Every call fails with a `StoreUnavailableError` when Redis does not answer within
 * `timeoutMs`.
 */
export class RedisBudgetStore implements BudgetStore {
  readonly #redis: RedisConnection;
  readonly #limits: Limits;
  readonly #prefix: string;
  readonly #timeoutMs: number;
  readonly #take = new RedisScript(TAKE_SCRIPT);
  readonly #restamp = new RedisScript(RESTAMP_SCRIPT);

  constructor(
    redis: RedisConnection,
    limits: Limits,
    prefix = 'tts-bot:budget',
    timeoutMs = COMMAND_TIMEOUT_MS,
  ) {
    this.#redis = redis;
    this.#limits = limits;
    this.#prefix = prefix;
    this.#timeoutMs = timeoutMs;
  }

  async take(keyId: string, op: Operation, now: number): Promise<Take> {
    const limits = this.#limits[op];
    const args = [String(now), `${now}:${randomUUID()}`, String(this.#ttl(op))];
    for (const limit of limits) args.push(String(limit.count), String(windowWithMargin(limit)));
    const reply = await withTimeout(
      () => this.#take.run(this.#redis, [this.#key(keyId, op)], args),
      'budget take',
      this.#timeoutMs,
    );
    if (!Array.isArray(reply) || reply.length === 0) throw new Error('budget script: bad reply');
    if (Number(reply[0]) === 1) return { ok: true };
    const limit: Limit | undefined = limits[Number(reply[2]) - 1];
    if (limit === undefined) throw new Error('budget script: unknown binding limit');
    return { ok: false, waitMs: Number(reply[1]), limit };
  }

  async restamp(keyId: string, op: Operation, takenAt: number, answeredAt: number): Promise<void> {
    if (answeredAt <= takenAt) return;
    const args = [String(takenAt), String(answeredAt), String(this.#ttl(op))];
    await withTimeout(
      () => this.#restamp.run(this.#redis, [this.#key(keyId, op)], args),
      'budget restamp',
      this.#timeoutMs,
    );
  }

  async usage(keyId: string, op: Operation, now: number): Promise<LimitUsage[]> {
    const limits = this.#limits[op];
    const entries = await withTimeout(
      () =>
        this.#redis.zRangeByScoreWithScores(
          this.#key(keyId, op),
          `(${now - horizonOf(limits)}`,
          '+inf',
        ),
      'budget usage',
      this.#timeoutMs,
    );
    return usageOf(
      limits,
      entries.map((entry) => entry.score),
      now,
    );
  }

  #key(keyId: string, op: Operation): string {
    return `${this.#prefix}:${keyId}:${op}`;
  }

  /** A log no window can see any more expires by itself (a key that is no longer used). */
  #ttl(op: Operation): number {
    return Math.ceil(horizonOf(this.#limits[op])) + 60_000;
  }
}
