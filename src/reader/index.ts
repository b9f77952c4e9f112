/** The chat reader (streamer mode): what is read, how it sounds, and how a busy chat keeps up. */
export { batchCost, ChatBacklog, type PendingMessage } from './backlog.ts';
export {
  type ChatLine,
  composeBatch,
  type LastRead,
  spokenName,
} from './compose.ts';
export { applyDictionary, withEntry, withoutWord } from './dictionary.ts';
export { type MessageFacts, type ReadDecision, readDecision } from './filter.ts';
export { CHAT_REQUESTER } from './guild-reader.ts';
export {
  type AttachmentKind,
  ENGLISH_PHRASES,
  type ReaderPhrases,
  readerPhrases,
} from './phrases.ts';
export { type ChatSpeakingDeps, chatSpeaking } from './port.ts';
export { ChatReader, type ChatReaderOptions, type ReaderStats } from './reader.ts';
export { type ChatContent, type CleanupOptions, cleanMessage, type SpokenMessage } from './text.ts';
export { NothingToRead } from './turns.ts';
export type { ChatSpeaking, ChatTurn, ChatVoice, IncomingMessage, TurnSource } from './types.ts';
