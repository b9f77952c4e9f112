/** The speaking service: the one path from a request to speech, shared by every adapter. */
export { chooseOutput, pickVoice } from './choose.ts';
export { liveSource } from './live-source.ts';
export {
  checkShare,
  DEFAULT_SHARE_DIVISOR,
  dailyLimitOf,
  memberDailyShare,
  type ShareCheck,
} from './quota.ts';
export { Reservations } from './reservations.ts';
export {
  type AttachOptions,
  DEFAULT_FILES_AT_ONCE,
  type Queued,
  SpeakingService,
  type SpeakingServiceOptions,
  ttsSource,
} from './service.ts';
export { Slots } from './slots.ts';
export {
  type FileProgress,
  MAX_TEXT_LENGTH,
  type Output,
  type PreparedSpeech,
  type ReadySpeech,
  type Requester,
  type SpeechChoices,
  type SpeechEnd,
  type SpeechFile,
  type SpeechInput,
  type SpeechJournal,
  type SpeechOrigin,
  type SpeechTicket,
} from './types.ts';
