export {
  type ApiKeyRotation,
  ApiKeyVault,
  LEGACY_KEYS_MIGRATED,
  migrateLegacyApiKeys,
  type ResealOutcome,
  resealApiKeys,
  UnreadableKeyError,
} from './api-keys.ts';
export { KeyvBudgetJournal } from './budget-journal.ts';
export { CHOSEN_VOICE_KEPT_MS, type ChosenVoice, KeyvChatVoices } from './chat-voices.ts';
export { guardStore, StoreUnavailableError, withTimeout } from './guard.ts';
export { deleteKeysUnder, keysUnder } from './key-scan.ts';
export {
  loadSecretKeys,
  NoSecretOpensError,
  onlyKey,
  openWithAny,
  type SecretKeys,
  UNOPENABLE_HINT,
} from './keyring.ts';
export { OPERATION_TIMEOUT_MS, openKeyv } from './keyv.ts';
export { KeyvLearnedTimesStore } from './learned-times.ts';
export {
  KeyvMemberSettings,
  type MemberSettings,
  NAME_SETTERS,
  normalizeSpokenName,
  SPOKEN_NAME_MAX,
} from './member-settings.ts';
export { type BotStore, isRedisUrl, openStore, type StoreConfig } from './open.ts';
export {
  BLOCKED_MODES,
  blockedWordsSchema,
  CHAT_VOICE_MODES,
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
  SILENT_MODES,
  SPOILER_MODES,
  TWITCH_BADGES,
  VOICE_MODES,
} from './reader-settings.ts';
export { openRedis, type RedisConnection, redactUrl } from './redis.ts';
export { RedisBudgetStore } from './redis-budgets.ts';
export { RedisJobSlots } from './redis-jobs.ts';
export {
  decryptSecret,
  encryptSecret,
  isLegacySecret,
  loadSecretKey,
  openBound,
  openLegacySecret,
  parseSecretKey,
  resealLegacySecret,
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
  SETTINGS_CACHE_MS,
  type SettingsCacheOptions,
  type SettingsStore,
  type UserSettings,
} from './settings.ts';
export { KeyvSpeechCacheStore } from './speech-cache.ts';
export { flushDeletions } from './sqlite.ts';
export {
  defaultTwitchSettings,
  TWITCH_BOUNDS,
  TWITCH_READ_MODES,
  type TwitchReadMode,
  type TwitchSettings,
  twitchSettingsSchema,
} from './twitch-settings.ts';
export {
  addGeneration,
  CHAT_LEDGER_ID,
  type DaySpend,
  type DayUsage,
  emptyDay,
  KeyvUsageLedger,
  type LedgerBill,
  nextUtcDay,
  USAGE_DAYS_KEPT,
  type UsageLedger,
  utcDay,
} from './usage.ts';
export {
  ASSIGNMENT_KEPT_MS,
  KeyvVoiceAssignments,
  type StoredAssignment,
} from './voice-assignments.ts';
