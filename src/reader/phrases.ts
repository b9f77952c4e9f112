/**
 * The words the chat reader puts around chat messages ("Bobby said", "a link to example.com",
 * "an image"), in the server's language. They come from the translation files (`reader.speech.*`),
 * so a German server with a German voice hears German glue, not English.
 */
import { english, type Language, type Translator } from '../i18n/index.ts';

/** What a message can carry besides words, as the listener hears it. */
export type AttachmentKind = 'image' | 'video' | 'audio' | 'file' | 'sticker';

/** The reader's spoken phrases in one language; pure, so the text functions stay pure. */
export interface ReaderPhrases {
  readonly language: Language;
  /** "Bobby said hello." (`text` already ends with its punctuation). */
  said(name: string, text: string): string;
  /** "Bobby, hello.": the compact form a busy chat is read with (`text` ends as for `said`). */
  saidShort(name: string, text: string): string;
  /** "Bobby sent an image" (the caller adds the full stop). */
  sent(name: string, what: string): string;
  /** "Bobby forwarded: hello." (`text` ends as for `said`). */
  forwarded(name: string, text: string): string;
  /** "Bobby asked: Pizza tonight? Options: yes and no" (the caller adds the full stop). */
  asked(name: string, text: string): string;
  /** "cheered 500 bits: great stream", read after the cheerer's name (`text` may be empty). */
  cheered(bits: number, text: string): string;
  /** "Pizza tonight? Options: yes and no": a poll's question (ending its sentence) and its answers. */
  poll(question: string, options: readonly string[]): string;
  /** "a sticker: Wave", "2 stickers: Wave and Hi". */
  stickers(names: readonly string[]): string;
  /** "look at this, with an image". */
  withExtras(text: string, extras: string): string;
  /** "a link to example.com", or "a link" when the host cannot be read. */
  link(host: string | undefined): string;
  /** "an image", "2 images". */
  count(kind: AttachmentKind, count: number): string;
  /** "a file and a sticker": a list joined as the language does. */
  list(parts: readonly string[]): string;
  /** A Discord timestamp as words. */
  date(date: Date): string;
  /** Opens a text still under the API's minimum, before its first "Bobby said". */
  readonly preface: string;
  /** Ends a sentence: "." or "。". */
  readonly fullStop: string;
  /** Ends a cut text ("… and more"). */
  readonly andMore: string;
  readonly codeBlock: string;
  /** A mentioned member whose name is unknown. */
  readonly someone: string;
  /** The speaker when their name has nothing speakable. */
  readonly unknownAuthor: string;
  readonly role: string;
  readonly channel: string;
  /** A timestamp that cannot be read. */
  readonly someDate: string;
}

/** The reader's phrases in a translator's language. */
export function readerPhrases(translator: Translator): ReaderPhrases {
  const { t, language } = translator;
  const list = new Intl.ListFormat(language, { style: 'long', type: 'conjunction' });
  const dates = new Intl.DateTimeFormat(language, {
    timeZone: 'UTC',
    dateStyle: 'long',
    timeStyle: 'short',
  });
  return {
    language,
    said: (name, text) => t('reader.speech.said', { name, text }),
    saidShort: (name, text) => t('reader.speech.said_short', { name, text }),
    sent: (name, what) => t('reader.speech.sent', { name, what }),
    forwarded: (name, text) => t('reader.speech.forwarded', { name, text }),
    asked: (name, text) => t('reader.speech.asked', { name, text }),
    cheered: (bits, text) => {
      const cheered = t('reader.speech.cheered', { count: bits });
      return text === '' ? cheered : t('reader.speech.cheered_text', { cheered, text });
    },
    poll: (question, options) =>
      t('reader.speech.poll', { question, options: list.format(options) }),
    stickers: (names) =>
      t('reader.speech.sticker_named', { count: names.length, names: list.format(names) }),
    withExtras: (text, extras) => t('reader.speech.with', { text, extras }),
    link: (host) =>
      host === undefined ? t('reader.speech.link') : t('reader.speech.link_to', { host }),
    count: (kind, count) => t(`reader.speech.${kind}`, { count }),
    list: (parts) => list.format(parts),
    date: (date) => dates.format(date),
    preface: t('reader.speech.preface'),
    fullStop: t('reader.speech.full_stop'),
    andMore: t('reader.speech.and_more'),
    codeBlock: t('reader.speech.code_block'),
    someone: t('reader.speech.someone'),
    unknownAuthor: t('reader.speech.unknown_author'),
    role: t('reader.speech.role'),
    channel: t('reader.speech.channel'),
    someDate: t('reader.speech.date'),
  };
}

/** English phrases: for servers whose locale is unknown, and for tests. */
export const ENGLISH_PHRASES: ReaderPhrases = readerPhrases(english);
