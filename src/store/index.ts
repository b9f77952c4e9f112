export { ApiKeyVault, UnreadableKeyError } from './api-keys.ts';
export { KeyvBudgetJournal } from './budget-journal.ts';
export { guardStore, StoreUnavailableError } from './guard.ts';
export { openKeyv } from './keyv.ts';
export {
  DEFAULT_MAX_AGE_MS,
  type DictionaryEntry,
  defaultReaderSettings,
  dictionaryEntrySchema,
  dictionarySchema,
  EMOJI_MODES,
  READ_BOTS,
  READER_BOUNDS,
  type ReaderSettings,
  readerSettingsSchema,
  SPOILER_MODES,
} from './reader-settings.ts';
export { openRedis, redactUrl } from './redis.ts';
export { RedisBudgetStore, type RedisConnection } from './redis-budgets.ts';
export { RedisJobSlots } from './redis-jobs.ts';
export {
  decryptSecret,
  encryptSecret,
  loadSecretKey,
  type OpenedSecret,
  openBound,
  parseSecretKey,
  sealBound,
} from './secrets.ts';
export {
  type GuildDefaults,
  type GuildLimits,
  type GuildSettings,
  type GuildSettingsInput,
  guildDefaultsSchema,
  guildLimitsSchema,
  KeyvSettingsStore,
  type SettingsStore,
  type UserSettings,
} from './settings.ts';
export { KeyvSpeechCacheStore } from './speech-cache.ts';
export {
  addGeneration,
  type DayUsage,
  emptyDay,
  KeyvUsageLedger,
  nextUtcDay,
  USAGE_DAYS_KEPT,
  type UsageLedger,
  utcDay,
} from './usage.ts';
