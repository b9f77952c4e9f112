/** What the speaking service is built from, and what its parts (checks, delivery, entrances) share. */
import type { Translator } from '../i18n/index.ts';
import type { Logger } from '../log/index.ts';
import type { PreviewCache } from '../preview/index.ts';
import { serverClient } from '../settings/index.ts';
import type { BlocklistCache, DetectLanguage } from '../speech/index.ts';
import type { SettingsStore, UsageLedger } from '../store/index.ts';
import type { Clock, TtsClient, TtsClients } from '../tts/index.ts';
import type { VoiceService } from '../voice/index.ts';
import type { AssignmentStore } from './auto-voices.ts';
import { TicketJournal } from './journal.ts';
import type { PcmDecoder } from './live-streams.ts';
import type { Spending } from './spending.ts';
import type { SpeechEnd, SpeechJournal, SpeechTicket } from './types.ts';

/** What the speaking service is built from (the composition root passes the bot's own). */
export interface SpeakingServiceOptions {
  readonly settings: Pick<SettingsStore, 'guild' | 'user'>;
  /** The server's API key, decrypted; undefined when none is set. */
  readonly apiKeyOf: (guildId: string) => Promise<string | undefined>;
  readonly tts: Pick<TtsClients, 'forKey'>;
  readonly voice: Pick<VoiceService, 'channelOf' | 'speak'>;
  /** Generations recorded per server, member and day: the daily shares count from it. */
  readonly usage: UsageLedger;
  /** Voice samples, generated once per key and voice (previews). */
  readonly previews: Pick<PreviewCache, 'get'>;
  /** The key's daily generation limit; the default member share is a fifth of it. */
  readonly dailyLimit: number | undefined;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Shortest text the API accepts. */
  readonly minTextLength: number;
  /** The server's language for words the bot says in speech ("beep"); English when absent. */
  readonly translatorOf?: ((guildId: string) => Translator) | undefined;
  /** Compiled block lists, shared with the chat reader's early screen; a new cache when absent. */
  readonly blocklists?: BlocklistCache | undefined;
  /**
   * File-mode requests per server waiting for the key's budget at once (more wait in line), and
   * downloading at once. Default 5.
   */
  readonly filesAtOnce?: number;
  /**
   * Tells a line's language where the API takes one (v3); absent: only the script, the
   * member's and the server's language decide it (see `lineLanguage`).
   */
  readonly detectLanguage?: DetectLanguage | undefined;
  /** Where chatters' automatic voices are kept between runs; in memory only by default. */
  readonly voiceAssignments?: AssignmentStore | undefined;
  /** Records pending generations so they survive a restart; none by default. */
  readonly journal?: SpeechJournal | undefined;
  /**
   * Told once how each request ended, whether or not it reached the API (for metrics);
   * `cached` is a delivery of audio reused from the cache.
   */
  readonly onEnd?: ((outcome: SpeechEnd['state'] | 'cached') => void) | undefined;
  /** Decodes a stream's file to PCM, so a stream failing mid-way carries on from it; none: it ends there. */
  readonly decodePcm?: PcmDecoder | undefined;
}

/** The service's shared parts, handed to each of its jobs. */
export class SpeakingContext {
  readonly options: SpeakingServiceOptions;
  readonly logger: Logger;
  readonly spending: Spending;

  constructor(options: SpeakingServiceOptions, logger: Logger, spending: Spending) {
    this.options = options;
    this.logger = logger;
    this.spending = spending;
  }

  /** The server's client, or a refusal telling who can set a key and how. */
  clientFor(guildId: string, canManage: boolean): Promise<TtsClient> {
    const { apiKeyOf, tts } = this.options;
    return serverClient({ apiKeys: { get: apiKeyOf }, tts }, guildId, canManage);
  }

  /** The journal calls of one request, in the order the journal promises. */
  journalOf(ticket: SpeechTicket): TicketJournal {
    const logger = this.logger.child({ guildId: ticket.guildId });
    return new TicketJournal(this.options.journal, ticket, logger);
  }

  /** Tells `onEnd`; a failing listener must not change how speech ends. */
  ended(end: SpeechEnd, fromCache = false): void {
    try {
      this.options.onEnd?.(end.state === 'delivered' && fromCache ? 'cached' : end.state);
    } catch (error) {
      this.logger.warn({ err: error }, 'onEnd listener failed');
    }
  }
}
