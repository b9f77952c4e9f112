/** Nothing lost: pending speech journalled in the store and resumed after a restart. */
export { createJournal, createResumer, type Durable, type ResumeDiscord } from './create.ts';
export { PendingJournal, type PendingJournalOptions } from './journal.ts';
export {
  type JournalIndex,
  KeyvJournalIndex,
  LEGACY_INDEX,
  RedisJournalIndex,
} from './journal-index.ts';
export {
  type DeliveryRoute,
  deliveryRoute,
  GENERATION_LIFETIME_MS,
  INTERACTION_TOKEN_LIFETIME_MS,
  type PendingSpeech,
  pendingSpeechSchema,
  REPLY_EDIT_MARGIN_MS,
  type ResumePlan,
  resumePlan,
  tokenUsable,
} from './pending.ts';
export { JournalRecorder } from './recorder.ts';
export { type RequeuedEnd, type ResultMessage, ResumeReports, type SendResult } from './reports.ts';
export { PendingResumer, type ResumeOptions } from './resume.ts';
export {
  type OpenedEntry,
  openEntry,
  replyContext,
  type StoredPending,
  sealEntry,
  storedPendingSchema,
} from './sealed.ts';
