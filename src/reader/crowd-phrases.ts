/**
 * The spoken glue a busy chat adds ("7 people said LUL", the "beep" over a blocked word), in the
 * server's language, from the translation files (`reader.speech.said_by_many`, `.bleep`). Kept
 * beside `ReaderPhrases` until the reader is wired to use them; the two can then merge.
 */
import { english, type Translator } from '../i18n/index.ts';

/** The busy-chat phrases in one language; pure, so the cores that use them stay pure. */
export interface CrowdPhrases {
  /** "7 people said LUL." (`text` already ends with its punctuation). */
  saidByMany(count: number, text: string): string;
  /** The short word read in place of a blocked word (`blocked: bleep`). */
  readonly bleep: string;
}

/** The busy-chat phrases in a translator's language. */
export function crowdPhrases({ t }: Translator): CrowdPhrases {
  return {
    saidByMany: (count, text) => t('reader.speech.said_by_many', { count, text }),
    bleep: t('reader.speech.bleep'),
  };
}

/** English busy-chat phrases: for servers whose locale is unknown, and for tests. */
export const ENGLISH_CROWD_PHRASES: CrowdPhrases = crowdPhrases(english);
