/**
 * Turns a batch of chat messages into the one text spoken for them: "Bobby said …" prefixes
 * where the listener needs them, and padding that sounds natural when the text is shorter
 * than the API accepts, in the language the batch is read in (`ReaderPhrases`). Pure.
 */
import type { ReaderPhrases } from './phrases.ts';
import { endSentence, finalPass, truncate } from './text.ts';

/** One message as the composer needs it. */
export interface ChatLine {
  readonly authorId: string;
  readonly authorName: string;
  /** Speakable text (see `cleanMessage`). */
  readonly text: string;
  /**
   * `did`: a Twitch `/me` action, read as "Bobby waves"; `forwarded`: "Bobby forwarded: …";
   * `asked`: a poll, "Bobby asked: … Options: …".
   */
  readonly kind: 'said' | 'sent' | 'did' | 'forwarded' | 'asked';
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
   * The words around the messages, in the batch's language (see `linePhrases`: the server's,
   * the line's own, or glue without words). Its `preface` is long enough that preface, prefix
   * and the shortest message reach the API's minimum (tested per language).
   */
  readonly phrases: ReaderPhrases;
  /** A busy chat: "Bobby, hello." (`saidShort`) in place of "Bobby said hello.". */
  readonly compact?: boolean;
}

/** Characters `batchCost` counts for the words around a message: " said ", a full stop, a space. */
export const SAID_GLUE_CHARS = 8;

/**
 * The glue `batchCost` counts for the compact "Bobby, …": the share of {@link SAID_GLUE_CHARS}
 * that the language's compact words are of its "Bobby said …" (each with a full stop and a
 * space), so the rate learned in one form forecasts the other. English: 4 of 8.
 */
export function compactGlueChars(phrases: Pick<ReaderPhrases, 'said' | 'saidShort'>): number {
  const full = phrases.said('', '').length + 2;
  const short = phrases.saidShort('', '').length + 2;
  return Math.max(1, Math.min(SAID_GLUE_CHARS, Math.round((SAID_GLUE_CHARS * short) / full)));
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
 * for being short. `compact` names the author in the short form ("Bobby, …"); `/me` actions,
 * attachments and choruses read the same either way.
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
        if (line.kind === 'forwarded')
          return phrases.forwarded(name, endSentence(line.text, phrases));
        if (line.kind === 'asked') return endSentence(phrases.asked(name, line.text), phrases);
        return line.kind === 'sent'
          ? endSentence(phrases.sent(name, line.text), phrases)
          : (options.compact === true ? phrases.saidShort : phrases.said)(
              name,
              endSentence(line.text, phrases),
            );
      })
      .join(' ');
  let text = render(prefixed);
  if (text.length < options.minLength && lines.length > 0) {
    text = render([lines[0]?.crowd !== true, ...prefixed.slice(1)]);
    if (text.length < options.minLength) text = `${phrases.preface} ${text}`;
  }
  return { text, last };
}
