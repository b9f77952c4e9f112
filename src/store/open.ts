import type Keyv from 'keyv';
import type { Logger } from '../log/index.ts';
import {
  type BudgetStore,
  type Clock,
  FallbackBudgetStore,
  type JobSlots,
  type Limits,
  MemoryBudgetStore,
  shareOfLimits,
} from '../tts/index.ts';
import { ApiKeyVault, migrateLegacyApiKeys } from './api-keys.ts';
import { KeyvBudgetJournal } from './budget-journal.ts';
import { loadSecretKeys, type SecretKeys } from './keyring.ts';
import { openKeyv } from './keyv.ts';
import { KeyvLearnedTimesStore } from './learned-times.ts';
import { KeyvMemberSettings } from './member-settings.ts';
import { openRedis, type RedisConnection } from './redis.ts';
import { RedisBudgetStore } from './redis-budgets.ts';
import { RedisJobSlots } from './redis-jobs.ts';
import { KeyvSettingsStore, SETTINGS_CACHE_MS } from './settings.ts';
import { KeyvSpeechCacheStore } from './speech-cache.ts';
import { KeyvUsageLedger } from './usage.ts';

/** What the store is opened from (the bot's `Config` has these fields). */
export interface StoreConfig {
  readonly storeUrl: string;
  readonly dataDir: string;
  readonly secretKey: Buffer | undefined;
  /** `SECRET_KEY_PREVIOUS`: secrets of before a rotation, which still open records. */
  readonly previousSecretKeys: readonly Buffer[];
  readonly ttsLimits: Limits;
}

/** The bot's store, opened: the raw keyv for the parts that keep their own records, and its operations. */
export interface BotStore {
  readonly keyv: Keyv;
  /** The Redis connection when the store is on Redis (shared by shard processes); else undefined. */
  readonly redis: RedisConnection | undefined;
  /**
   * Seal stored API keys and journalled interaction tokens: `current` seals, `previous` still
   * opens (each record is sealed again on first read).
   */
  readonly secretKeys: SecretKeys;
  readonly settings: KeyvSettingsStore;
  /** Each member's own settings per server: read or not, and their spoken name. */
  readonly members: KeyvMemberSettings;
  readonly apiKeys: ApiKeyVault;
  readonly usage: KeyvUsageLedger;
  /** Per-key rate budgets: shared on Redis (with this process's share as fallback), else in memory. */
  readonly budgets: BudgetStore;
  readonly speechCache: KeyvSpeechCacheStore;
  /** Each key's learned generation times, so first polls after a restart are well timed. */
  readonly learnedTimes: KeyvLearnedTimesStore;
  /** v3's concurrent jobs per key, shared by shard processes on Redis; else kept per process. */
  readonly jobs: JobSlots | undefined;
}

/**
 * Opens the store (SQLite, or Redis by URL), its secrets and rate budgets, and re-seals `v1` API
 * keys before anything reads one. Each connection is handed to `onStop` as soon as it is open,
 * so a start that fails half-way still closes it.
 */
export async function openStore(deps: {
  readonly config: StoreConfig;
  readonly clock: Clock;
  readonly logger: Logger;
  /**
   * How many bot processes share the keys' budgets (1 by default): while Redis is away, this one
   * keeps to its share of each limit.
   */
  readonly budgetSharers?: number | undefined;
  readonly onStop: (close: () => Promise<void>) => void;
}): Promise<BotStore> {
  const { config, logger } = deps;
  const keyv = await openKeyv(config.storeUrl);
  deps.onStop(() => keyv.disconnect());
  const secretKeys = await loadSecretKeys(config, logger);
  const settings = new KeyvSettingsStore(keyv, {
    cacheMs: SETTINGS_CACHE_MS,
    now: () => deps.clock.now(),
  });
  let redis: RedisConnection | undefined;
  if (isRedisUrl(config.storeUrl)) {
    // Shared with every other process on this Redis: budgets are exact across shards.
    const connection = await openRedis(config.storeUrl, (error) =>
      logger.warn({ err: error }, 'Redis connection error'),
    );
    deps.onStop(async () => void (await connection.close()));
    redis = connection;
  }
  const apiKeys = new ApiKeyVault(settings, secretKeys, logger);
  await migrateApiKeys(keyv, settings, apiKeys, logger);
  return {
    keyv,
    redis,
    secretKeys,
    settings,
    members: new KeyvMemberSettings(keyv),
    apiKeys,
    usage: new KeyvUsageLedger(keyv),
    budgets: budgetsOf({ ...deps, keyv, redis }),
    speechCache: new KeyvSpeechCacheStore(keyv),
    learnedTimes: new KeyvLearnedTimesStore(keyv),
    jobs: redis === undefined ? undefined : new RedisJobSlots(redis),
  };
}

/** True for `redis://` and `rediss://` store addresses. */
export function isRedisUrl(storeUrl: string): boolean {
  return /^rediss?:\/\//.test(storeUrl);
}

/** Before anything reads a key: `v1` records are re-sealed bound to their guild, then refused. */
async function migrateApiKeys(
  keyv: Keyv,
  settings: KeyvSettingsStore,
  apiKeys: ApiKeyVault,
  logger: Logger,
): Promise<void> {
  const migration = await migrateLegacyApiKeys(keyv, settings, apiKeys);
  if (migration !== 'done before' && migration.resealed > 0)
    logger.info({ resealed: migration.resealed }, 'stored API keys re-sealed to the v2 format');
  if (migration !== 'done before' && migration.unreadable > 0)
    logger.warn(
      { unreadable: migration.unreadable },
      'stored API keys in the v1 format do not open with this SECRET_KEY; they stay unreadable',
    );
}

/**
 * Redis budgets, exact across shards, falling back to this process's share of each limit while
 * Redis is away; without Redis, in memory, windows of an hour or more journalled in keyv.
 */
function budgetsOf(deps: {
  readonly config: StoreConfig;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly budgetSharers?: number | undefined;
  readonly keyv: Keyv;
  readonly redis: RedisConnection | undefined;
}): BudgetStore {
  const { config, clock, logger, redis } = deps;
  if (redis === undefined) {
    return new MemoryBudgetStore(config.ttsLimits, new KeyvBudgetJournal(deps.keyv));
  }
  let warnedAt = Number.NEGATIVE_INFINITY;
  return new FallbackBudgetStore(
    new RedisBudgetStore(redis, config.ttsLimits),
    new MemoryBudgetStore(shareOfLimits(config.ttsLimits, deps.budgetSharers ?? 1)),
    (error) => {
      // One line per 30 s of outage, not one per request.
      if (clock.now() - warnedAt < 30_000) return;
      warnedAt = clock.now();
      logger.warn({ err: error }, 'shared rate budgets unreachable; using this process’s own');
    },
  );
}
