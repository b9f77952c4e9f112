import { type BlocklistCache, screenAfter, screenText } from '../speech/index.ts';
import type { GuildSettings } from '../store/index.ts';
import type { CrowdPhrases } from './crowd-phrases.ts';
import type { ReaderPhrases } from './phrases.ts';
import { cleanMessage, type SpokenMessage } from './text.ts';
import type { IncomingMessage } from './types.ts';

/**
 * What a chat message says when read: cleaned (its extras, mentions and dictionary in a
 * language's words) and screened with the server's blocked words (bleeped, or not read), its
 * author's name too. One compiled block list per list of words, shared with the speaking path.
 */
export class MessageScreen {
  readonly #blocklists: BlocklistCache;

  constructor(blocklists: BlocklistCache) {
    this.#blocklists = blocklists;
  }

  /**
   * The message cleaned with `phrases` (its extras, mentions and dictionary in their language).
   */
  clean(message: IncomingMessage, guild: GuildSettings, phrases: ReaderPhrases): SpokenMessage {
    return cleanMessage(message.message, message.names, guild.reader, phrases, guild.dictionary);
  }

  /**
   * `screened` (cleaned and screened with the server's `phrases`) as read in `line`'s language:
   * unchanged when that is the server's, else cleaned and screened again with its phrases (its
   * extras and bleeps in that language); undefined when a blocked word keeps it from being read.
   */
  inLine(
    message: IncomingMessage,
    guild: GuildSettings,
    screened: SpokenMessage,
    phrases: ReaderPhrases,
    line: { readonly phrases: ReaderPhrases; readonly crowd: CrowdPhrases },
    before: string,
    after = '',
  ): SpokenMessage | undefined {
    if (line.phrases === phrases) return screened;
    const cleaned = this.clean(message, guild, line.phrases);
    return this.screen(guild, cleaned, line.crowd, before, after);
  }

  /**
   * The message as the server's blocked words allow it: undefined when it is not to be read
   * (`skip`), else with a "beep" over each blocked word (`bleep`).
   * With `before`, what the author said just before: a word spelled over their messages is
   * caught in the one that completes it, even when each is read in a turn of its own (the final
   * screen of a composed turn sees one turn only). With `after`, what they said after it (an
   * edit of an older message).
   */
  screen(
    guild: GuildSettings,
    spoken: SpokenMessage,
    crowd: CrowdPhrases,
    before = '',
    after = '',
  ): SpokenMessage | undefined {
    if (guild.blockedWords.length === 0) return spoken;
    const matcher = this.#blocklists.matcher(guild.blockedWords);
    const { blocked } = guild.reader;
    const screened = screenAfter(matcher, before, spoken.text, blocked, crowd.bleep, after);
    return screened.blocked ? undefined : { ...spoken, text: screened.text };
  }

  /**
   * Any text read aloud (the message, the author's name before it) as the blocked words allow
   * it: bleeped, or with `skip` undefined (the message is not read).
   */
  screenName(guild: GuildSettings, text: string, crowd: CrowdPhrases): string | undefined {
    if (guild.blockedWords.length === 0) return text;
    const matcher = this.#blocklists.matcher(guild.blockedWords);
    const screened = screenText(matcher, text, guild.reader.blocked, crowd.bleep);
    return screened.blocked ? undefined : screened.text;
  }
}
