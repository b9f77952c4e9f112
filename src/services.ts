import type { Config } from './config/index.ts';
import type { Logger } from './log/index.ts';
import type { ForgetService } from './privacy/index.ts';
import type { ChatReader, TwitchSource } from './reader/index.ts';
import type { SpeakingService } from './speaking/index.ts';
import type { ApiKeyVault, KeyvMemberSettings, SettingsStore, UsageLedger } from './store/index.ts';
import type { Clock, TtsClients } from './tts/index.ts';
import type { VoiceService } from './voice/index.ts';

/**
 * Everything handlers use, built once in the entry point and passed down. The store is reached
 * only through its operations (settings, keys, usage), never as the raw keyv.
 */
export interface Services {
  readonly config: Config;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly settings: SettingsStore;
  /** Each member's own settings per server (`/myvoice read` and `name`, `/config member-name`). */
  readonly members: KeyvMemberSettings;
  readonly apiKeys: ApiKeyVault;
  readonly tts: TtsClients;
  readonly voice: VoiceService;
  /** Generations per server, member and day (the per-member share, `/usage`). */
  readonly usage: UsageLedger;
  /** The one path from a request (`/say`, previews, the chat reader, resuming) to speech. */
  readonly speaking: SpeakingService;
  /** Streamer mode: reads the configured chat channels aloud (`/queue`, `/stop` see it). */
  readonly reader: ChatReader;
  /** Twitch chat read into the reader: `/config twitch` starts and stops a server's channels. */
  readonly twitch: TwitchSource;
  /** Deletes everything stored for a server (`/config forget`, a removal after retention). */
  readonly forget: ForgetService;
}
