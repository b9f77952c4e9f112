/**
 * The glue a chat line is read with where the API reads each line in its own language (v3):
 * "Anna said …" in the line's language when the bot has a translation for it, else the name and
 * the text with no word of another language, since the line's voice would pronounce the
 * server's words with its own accent ("Anna sagte" read by an English voice). Pure.
 */
import { localeOfLanguage, translatorFor, WORDLESS_BLEEP } from '../i18n/index.ts';
import { type CrowdPhrases, crowdPhrases } from './crowd-phrases.ts';
import { type ReaderPhrases, readerPhrases } from './phrases.ts';

/** The phrases of one language: around each line, and a busy chat's. */
export interface LinePhrases {
  readonly phrases: ReaderPhrases;
  readonly crowd: CrowdPhrases;
}

/**
 * Characters of the pause that opens a short line read without words (a third of the API's
 * 30-character minimum was the English preface's 27): the same room a translated preface takes.
 */
const WORDLESS_PREFACE_CHARS = 27;

/**
 * The server's phrases with their glue made of names and punctuation only: "Anna: ciao a
 * tutti." A busy chat's repeats are read once (no "7 people said"), a blocked word is a pause
 * ("…"), and a text under the API's minimum opens with a pause padded with spaces, which keeps
 * the character minimum without a word (v3, the only API that reads lines in their own
 * language, takes one character; v2 never gets here). What the message itself carries
 * ("a link to example.com", "an image") stays the server's: it describes the message, and a
 * line whose language was detected has words of its own around it.
 */
export function wordlessPhrases(server: LinePhrases): LinePhrases {
  const named = (separator: string) => (name: string, text: string) =>
    name === '' ? text : `${name}${separator}${text}`;
  return {
    phrases: {
      ...server.phrases,
      said: named(': '),
      saidShort: named(', '),
      sent: named(': '),
      forwarded: named(': '),
      asked: named(': '),
      cheered: (bits, text) => (text === '' ? `${bits}` : `${bits}: ${text}`),
      preface: '…'.padEnd(WORDLESS_PREFACE_CHARS),
      unknownAuthor: '',
    },
    crowd: { saidByMany: (_count, text) => text, bleep: WORDLESS_BLEEP },
  };
}

/**
 * The phrases a line in `language` (the ISO 639-1 code its voice reads it in; undefined where
 * the API takes none, v2) is read with: the server's for its own language or none, the
 * translation of the line's language, else the server's glue without words.
 */
export function linePhrases(server: LinePhrases, language: string | undefined): LinePhrases {
  if (language === undefined) return server;
  const locale = localeOfLanguage(language);
  if (locale === server.phrases.language) return server;
  if (locale === undefined) return wordlessPhrases(server);
  const translator = translatorFor(locale);
  return { phrases: readerPhrases(translator), crowd: crowdPhrases(translator) };
}
