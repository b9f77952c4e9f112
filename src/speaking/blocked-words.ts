/**
 * The server's blocked words applied to the exact text the TTS API is sent: `/say`'s final text
 * and a chat turn as composed (its messages joined, its authors' names as read). Earlier screens
 * (each chat message on arrival) spare work; this one is the authority, since messages that pass
 * one by one can spell a blocked word once joined ("f", "u", "c", "k"), and a name can pass raw
 * and hit once cleaned ("cu@nt" read as "cunt").
 */
import {
  english,
  localeOfLanguage,
  type Translator,
  translatorFor,
  WORDLESS_BLEEP,
} from '../i18n/index.ts';
import { UserError } from '../refusal/index.ts';
import { BlocklistCache, screenText } from '../speech/index.ts';
import type { GuildSettings } from '../store/index.ts';

/** Screens what is about to be generated; shared by `/say`'s checks and chat turns. */
export class BlockedWords {
  readonly #translatorOf: ((guildId: string) => Translator) | undefined;
  readonly #blocklists: BlocklistCache;

  /**
   * `translatorOf` gives a server's language, for its word for "beep" (default English);
   * `blocklists` the compiled lists shared with the reader's early screen (a new cache if absent).
   */
  constructor(
    translatorOf?: ((guildId: string) => Translator) | undefined,
    blocklists: BlocklistCache = new BlocklistCache(),
  ) {
    this.#translatorOf = translatorOf;
    this.#blocklists = blocklists;
  }

  /**
   * `text` as the server's rule allows it: with `blocked: bleep` a "beep" over each blocked
   * word, in the `language` the text is read in (v3; a pause for one without a translation),
   * else the server's; refused with `say_blocked` under `skip`, and under either rule when the
   * text is too costly to screen (see `STEP_BUDGET`).
   */
  screen(guildId: string, guild: GuildSettings, text: string, language?: string): string {
    if (guild.blockedWords.length === 0) return text;
    const matcher = this.#blocklists.matcher(guild.blockedWords);
    const locale = language === undefined ? undefined : localeOfLanguage(language);
    const translator =
      locale === undefined ? (this.#translatorOf?.(guildId) ?? english) : translatorFor(locale);
    const bleep =
      language !== undefined && locale === undefined
        ? WORDLESS_BLEEP
        : translator.t('reader.speech.bleep');
    const screened = screenText(matcher, text, guild.reader.blocked, bleep);
    if (screened.blocked) throw new UserError('say_blocked', {});
    return screened.text;
  }
}
