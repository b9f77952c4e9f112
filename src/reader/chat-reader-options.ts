import type { Translator } from '../i18n/index.ts';
import type { Logger } from '../log/index.ts';
import type { BlocklistCache } from '../speech/index.ts';
import type { KeyvMemberSettings, SettingsStore } from '../store/index.ts';
import type { Clock } from '../tts/index.ts';
import type { ChatSpeaking } from './types.ts';

/** Settings of a `ChatReader` (`reader.ts`): what it is handed and its pace. */
export interface ChatReaderOptions {
  readonly settings: Pick<SettingsStore, 'guild'>;
  /** Each member's own settings in the server: opted out of being read, their spoken name. */
  readonly members: Pick<KeyvMemberSettings, 'get'>;
  readonly speaking: ChatSpeaking;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The API's shortest text. */
  readonly minTextLength: number;
  /**
   * How long the oldest message of a busy chat waits before a turn starts, so neighbours merge
   * and a quick delete is free; a quiet chat's message does not wait (see `mergeHoldMs`). Default 1000.
   */
  readonly holdMs?: number;
  /**
   * Hold a quiet chat's messages too, as before issue 30 (benchmarks compare; tests of the
   * hold itself). Default false.
   */
  readonly holdQuietChat?: boolean;
  /** Most characters one generation holds. Default 600 (about 40 s of speech). */
  readonly batchChars?: number;
  /** Wait before asking a full queue again. Default 2000. */
  readonly retryMs?: number;
  /**
   * Choruses of repeats, chatter shares, priority and speed-ups (issue 19); false reads a busy
   * chat as before them (benchmarks compare). Default true.
   */
  readonly busyChat?: boolean;
  /** The language of a server (its community locale): the words read around its chat. Default English. */
  /** Compiled block lists, shared with the speaking path's screen so each list compiles once. */
  readonly blocklists?: BlocklistCache;
  readonly translatorOf?: (guildId: string) => Translator;
}

/** What `/queue` shows about the chat. */
export interface ReaderStats {
  /** Messages waiting to be read. */
  readonly waiting: number;
  /**
   * Of those, paid ones (Twitch redemptions and cheers): read first (a chat batch after every
   * `PAID_RUN` paid ones while chat waits), never dropped as stale.
   */
  readonly waitingPaid: number;
  /** Paid ones that came while the most waited (`PAID_WAITING_MAX`), and waited as plain chat. */
  readonly paidOverCap: number;
  /** Messages dropped because they could not be heard within `max-age` of being posted. */
  readonly droppedStale: number;
  /** Messages heard within another's reading: repeats said as one ("7 people said LUL"). */
  readonly collapsed: number;
  /** Messages not read because of a blocked word (`blocked: skip`) since the bot started. */
  readonly blocked: number;
  /** Messages not read because their author joined the server too recently (`new-member-delay`). */
  readonly newMember: number;
  /** Messages not read because the speaking path refused them: no key, or the author's chat share used up. */
  readonly refused: number;
}
