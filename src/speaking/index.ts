/** The speaking service: the one path from a request to speech, shared by every entrance. */
export { type AssignmentStore, AutoVoices, CACHED_VOICES } from './auto-voices.ts';
export type { ChatTurnRequest } from './chat.ts';
export { chooseOutput, defaultChoice, pickVoice } from './choose.ts';
export type { SpeakingServiceOptions } from './context.ts';
export { createSpeaking } from './create.ts';
export { DEFAULT_FILES_AT_ONCE } from './delivery.ts';
export { liveSource } from './live-source.ts';
export {
  checkShare,
  DEFAULT_SHARE_DIVISOR,
  dailyLimitOf,
  memberDailyShare,
  type ShareCheck,
} from './quota.ts';
export { queueRefusal, shareRefusal } from './refusals.ts';
export { Reservations } from './reservations.ts';
export { SpeakingService } from './service.ts';
export { Slots } from './slots.ts';
export { endOf, ttsSource } from './sources.ts';
export {
  type AttachOptions,
  type ChatGenerateOptions,
  type ChatVoice,
  type FileProgress,
  type LiveChatVoice,
  MAX_TEXT_LENGTH,
  type Output,
  type PreparedSpeech,
  type PreviewInput,
  type PreviewResult,
  type Queued,
  type ReadySpeech,
  type ReplayEnd,
  type Requester,
  type ResumedSpeech,
  type SayOutcome,
  type SpeechChoices,
  type SpeechEnd,
  type SpeechFile,
  type SpeechFollower,
  type SpeechInput,
  type SpeechJournal,
  type SpeechOrigin,
  type SpeechTicket,
} from './types.ts';
export { assignableVoices, chatterHash, firstVoice } from './voice-assignment.ts';
