/** The chat reader (streamer mode): what is read, how it sounds, and how a busy chat keeps up. */
export { batchCost, ChatBacklog, type PendingMessage } from './backlog.ts';
export type { ChatReaderOptions, ReaderStats } from './chat-reader-options.ts';
export {
  API_SPEED,
  type ChatSpeed,
  DEFAULT_MAX_SPEED,
  SpeedAwareRate,
  speedFor,
  speedSteps,
} from './chat-speed.ts';
export { ChatterShare, DEFAULT_SHARE, type FairOrder, type ShareLine } from './chatter-share.ts';
export {
  type ChatLine,
  composeBatch,
  type LastRead,
  spokenName,
} from './compose.ts';
export { createReader, type ReaderDiscord } from './create.ts';
export { type CrowdPhrases, crowdPhrases, ENGLISH_CROWD_PHRASES } from './crowd-phrases.ts';
export { applyDictionary, withEntry, withoutWord } from './dictionary.ts';
export { type MessageFacts, type ReadDecision, readDecision } from './filter.ts';
export { CHAT_REQUESTER, type MessageOrigin } from './guild-reader.ts';
export {
  type AttachmentKind,
  ENGLISH_PHRASES,
  type ReaderPhrases,
  readerPhrases,
} from './phrases.ts';
export { type ChatSpeakingDeps, chatSpeaking } from './port.ts';
export { type ChatterStanding, hasPriority, PRIORITY_BADGES, priorityFirst } from './priority.ts';
export { ChatReader } from './reader.ts';
export { chorusText, collapseRepeats, type RepeatGroup, repeatKey } from './repeats.ts';
export { hasMemberSettings, type Speaker, type SpeakerFacts, speakerOf } from './speaker.ts';
export { type ChatContent, type CleanupOptions, cleanMessage, type SpokenMessage } from './text.ts';
export { NothingToRead } from './turn.ts';
export { createTwitchSource } from './twitch-create.ts';
export {
  TWITCH_ID_PREFIX,
  twitchAuthorId,
  twitchChannelId,
  twitchIncoming,
  twitchMessageId,
  withEmotes,
} from './twitch-message.ts';
export {
  type TwitchChannelStatus,
  type TwitchOutcome,
  TwitchSource,
  type TwitchSourceOptions,
} from './twitch-source.ts';
export type { ChatSpeaking, ChatTurn, ChatVoice, IncomingMessage, TurnSource } from './types.ts';
