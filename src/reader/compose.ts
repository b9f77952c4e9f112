/**
 * Turns a batch of chat messages into the one text spoken for them: "Bobby said …" prefixes
 * where the listener needs them, and padding that sounds natural when the text is shorter
 * than the API accepts, in the server's language (`ReaderPhrases`). Pure.
 */
import type { ReaderPhrases } from './phrases.ts';
import { endSentence, finalPass, truncate } from './text.ts';

/** One message as the composer needs it. */
export interface ChatLine {
  readonly authorId: string;
  readonly authorName: string;
  /** Speakable text (see `cleanMessage`). */
  readonly text: string;
  /** `did`: a Twitch `/me` action, read as "Bobby waves". */
  readonly kind: 'said' | 'sent' | 'did';
  /** When the bot received it (ms). */
  readonly at: number;
  /** Said by many ("7 people said LUL."): read as it is, with no "Bobby said". */
  readonly crowd?: boolean;
}

/** The last message read aloud in a server, for the prefix rule. */
export interface LastRead {
  readonly authorId: string;
  readonly at: number;
}

/** A prefix is left out when the same author's previous read message came less than this before. */
export const PREFIX_GAP_MS = 60_000;

/** Settings of {@link composeBatch}. */
export interface ComposeOptions {
  readonly saidPrefix: boolean;
  /** The API's shortest text. */
  readonly minLength: number;
  readonly last: LastRead | undefined;
  /**
   * The words around the messages, in the server's language. Its `preface` is long enough
   * that preface, prefix and the shortest message reach the API's minimum (tested per language).
   */
  readonly phrases: ReaderPhrases;
}

/** The name as spoken: clean, at most 40 characters, "Someone" (`unknownAuthor`) when nothing is left. */
export function spokenName(name: string, phrases: ReaderPhrases): string {
  return truncate(finalPass(name, phrases), 40, phrases) || phrases.unknownAuthor;
}

/**
 * The text for a batch, and the new last-read message. The prefix ("Bobby said") is left out
 * only when the previous message read was the same author's, less than a minute before, so
 * interleaved chat always says who speaks. Attachment-only messages always say who "sent" them,
 * and `/me` actions always start with who did them.
 * Text under `minLength` gets its prefix, then a short preface: a message is never dropped
 * for being short.
 */
export function composeBatch(
  lines: readonly ChatLine[],
  options: ComposeOptions,
): { text: string; last: LastRead | undefined } {
  const { phrases } = options;
  let last = options.last;
  const prefixed: boolean[] = [];
  for (const line of lines) {
    if (line.crowd === true) {
      prefixed.push(false);
      last = undefined;
      continue;
    }
    const continues =
      last !== undefined && last.authorId === line.authorId && line.at - last.at < PREFIX_GAP_MS;
    prefixed.push(line.kind !== 'said' || (options.saidPrefix && !continues));
    last = { authorId: line.authorId, at: line.at };
  }
  const render = (withPrefix: readonly boolean[]): string =>
    lines
      .map((line, i) => {
        if (!withPrefix[i]) return endSentence(line.text, phrases);
        const name = spokenName(line.authorName, phrases);
        if (line.kind === 'did') return endSentence(`${name} ${line.text}`, phrases);
        return line.kind === 'sent'
          ? endSentence(phrases.sent(name, line.text), phrases)
          : phrases.said(name, endSentence(line.text, phrases));
      })
      .join(' ');
  let text = render(prefixed);
  if (text.length < options.minLength && lines.length > 0) {
    text = render([lines[0]?.crowd !== true, ...prefixed.slice(1)]);
    if (text.length < options.minLength) text = `${phrases.preface} ${text}`;
  }
  return { text, last };
}
