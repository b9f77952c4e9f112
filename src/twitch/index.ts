/** Twitch chat as a source for the chat reader: read-only, anonymous, one connection for all servers. */
export { type BackoffPolicy, backoffDelay, DEFAULT_BACKOFF } from './backoff.ts';
export { TwitchChat, type TwitchChatOptions } from './chat.ts';
export { GLOBAL_CHEERMOTES, withoutCheermotes } from './cheers.ts';
export {
  CONTROL_BADGES,
  chatCommandOf,
  DEFAULT_COMMAND_PREFIX,
  mayControl,
  type TwitchChatCommand,
} from './commands.ts';
export type {
  TwitchChatEvent,
  TwitchCleared,
  TwitchDeleted,
  TwitchEmote,
  TwitchMessage,
} from './events.ts';
export type { JoinLimit } from './joins.ts';
export type { TwitchChannelState, TwitchChatEvents } from './listeners.ts';
export { MAX_TWITCH_CHANNELS_PER_SERVER, twitchLogin } from './readers.ts';
