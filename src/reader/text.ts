/**
 * Chat message text as it should sound: mentions become names, links "a link to <domain>",
 * code blocks "a code block", emoji their names, markdown markers and raw syntax gone; the
 * added words in the server's language (`ReaderPhrases`). Pure; the invariants (no mention
 * syntax, raw URL or markdown marker, never over the maximum length) are enforced by a final
 * pass whatever came before.
 *
 * It runs on the event loop every server shares, so every step is linear in its input and
 * every input is cut to a few times `max-length` first: no message or dictionary can stall
 * the process (issue 22). Each pattern below can start a match at only a few positions of a
 * run (a lookbehind, a line start), never rescan the run from each of its characters.
 */
import type { MentionNames } from '../speech/index.ts';
import type { DictionaryEntry } from '../store/index.ts';
import { applyDictionary } from './dictionary.ts';
import { EMOJI_PATTERN, emojiName } from './emoji.ts';
import type { AttachmentKind, ReaderPhrases } from './phrases.ts';

/** An attachment of a chat message: only its name and type matter to the listener. */
export interface AttachmentInfo {
  readonly name: string;
  readonly contentType: string | null;
}

/** What a chat message carries that can be spoken. */
export interface ChatContent {
  readonly content: string;
  readonly attachments: readonly AttachmentInfo[];
  /** Sticker names. */
  readonly stickers: readonly string[];
  /** The message it forwards (its snapshot): read as "Bobby forwarded: …" in place of its own. */
  readonly forwarded?: ChatContent;
  /** A poll it carries: read as "Bobby asked: … Options: …". */
  readonly poll?: { readonly question: string; readonly answers: readonly string[] };
}

/** How the reader speaks a message, from the server's reader settings. */
export interface CleanupOptions {
  readonly emoji: 'names' | 'drop';
  readonly spoilers: 'skip' | 'read';
  /** Characters per message; longer text is cut at a word and ends with "and more" (`andMore`). */
  readonly maxLength: number;
}

/**
 * A message made speakable: `said` has words; `sent` only attachments or stickers;
 * `forwarded` is what another message said; `asked` is a poll.
 */
export interface SpokenMessage {
  readonly text: string;
  readonly kind: 'said' | 'sent' | 'forwarded' | 'asked';
}

/**
 * A link with a scheme, as `(digits)(scheme://rest)`: the scheme is the first letter of a run of
 * scheme characters onwards. The lookbehind starts the match only at the run's start, so a long
 * run without `://` (`u.u.u…` after the dictionary) is scanned once, not once per character.
 */
const URL = /(?<![a-z0-9+.-])([0-9+.-]*)([a-z][a-z0-9+.-]*:\/\/[^\s<>]*)/gi;
/** {@link URL} in raw chat, maybe in `<…>` (which hides its preview). */
const RAW_URL = /<?(?<![a-z0-9+.-])([0-9+.-]*)([a-z][a-z0-9+.-]*:\/\/[^\s<>]+)>?/gi;
const WWW = /\bwww\.[^\s<>]*/gi;
const HAS_LINK = /(?<![a-z0-9+.-])[0-9+.-]*[a-z][a-z0-9+.-]*:\/\/|\bwww\./i;
/**
 * `[label](url)`. Neither the label nor the address holds a bracket, so each `](` belongs to
 * one match attempt and an address is scanned once (`[a](x[a](x…` stays linear).
 */
const MARKDOWN_LINK = /\[([^[\]\n]{1,200})\]\(\s*<?([^)\]\s>]+)>?\s*\)/g;
/** One emoji and its repeats (`🔥🔥🔥` is said once). */
const EMOJI_RUN = new RegExp(`(${EMOJI_PATTERN.source})(?:\\s*\\1)*`, 'gu');
/** Trailing stops and spaces; the lookbehind starts the match at the run's start only. */
const TRAILING_STOPS = /(?<![\s,;:.!?])[\s,;:.!?]+$/;
const SPACE = /\s/;

/**
 * How much text each step of the cleanup may work on, in multiples of `max-length`: a chat
 * message (up to 4,000 characters) and a dictionary result (a word can become 200) are cut to
 * this first. Twice the spoken length leaves room for what the cleanup shortens (a long link
 * becomes "a link to youtube.com", markup goes), so a message near `max-length` is said as
 * before; what is cut is said to be ("and more").
 */
export const WORK_FACTOR = 2;

/**
 * Invisible format characters (`\p{Cf}`: zero-width space and joiners, word joiner, bidi
 * controls, soft hyphen…), as `(kept)` for a joiner inside an emoji sequence (👨‍👩‍👧 stays one
 * emoji) and no group for the rest.
 */
const FORMAT =
  /((?:\p{Extended_Pictographic}|\p{Emoji_Modifier}|\uFE0F)\u200D)(?=\p{Extended_Pictographic})|\p{Cf}/gu;

/**
 * Text without invisible format characters, which would hide a link, a prefix or a repeat from
 * the rules (`ht\u200Btps://`, `\u200B!play`): the filters and the cleanup see chat through this.
 */
export function visibleText(text: string): string {
  return text.replace(FORMAT, (_, joined: string | undefined) => joined ?? '');
}

/** Sentence ends in the languages we speak, Latin and CJK. */
const SENTENCE_END = /[.!?…。！？]$/;

/** Spoken form of a link: "a link to <domain>" when the domain can be read, else "a link". */
export function linkPhrase(raw: string, phrases: ReaderPhrases): string {
  return ` ${phrases.link(linkHost(raw))} `;
}

/** The host of a link as it can be spoken (`youtube.com`), if it can. */
function linkHost(raw: string): string | undefined {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `https://${raw}`;
  try {
    const host = new globalThis.URL(withScheme).hostname.replace(/^www\./, '');
    return /^[a-z0-9.-]+$/i.test(host) && host.includes('.') ? host : undefined;
  } catch {
    // Not a URL after all: "a link" without a host.
    return undefined;
  }
}

/** Ends a text with a full stop in the phrases' language unless it ends a sentence already. */
export function endSentence(text: string, phrases: ReaderPhrases): string {
  return SENTENCE_END.test(text) ? text : `${text}${phrases.fullStop}`;
}

/**
 * Speakable text of a chat message in the phrases' language, or empty when nothing is left to
 * say. A forward is the forwarded message cleaned alike; a poll its question and answers, each
 * cleaned alike; both within `maxLength`.
 */
export function cleanMessage(
  message: ChatContent,
  names: MentionNames,
  options: CleanupOptions,
  phrases: ReaderPhrases,
  dictionary: readonly DictionaryEntry[] = [],
): SpokenMessage {
  if (message.poll !== undefined)
    return pollMessage(message.poll, names, options, phrases, dictionary);
  if (message.forwarded !== undefined) {
    const { text } = cleanMessage(message.forwarded, names, options, phrases, dictionary);
    return { text, kind: 'forwarded' };
  }
  const budget = WORK_FACTOR * options.maxLength;
  const input = cutAt(visibleText(message.content), budget);
  const speakable = cutAt(speakableBody(input.text, names, options, phrases, input.cut), budget);
  const replaced = cutAt(applyDictionary(speakable.text, dictionary), budget);
  const body = finalPass(replaced.text, phrases);
  const cut = input.cut || speakable.cut || replaced.cut;
  const extras = extrasPhrase(message, phrases);
  if (body === '') return { text: truncate(extras, options.maxLength, phrases), kind: 'sent' };
  // A cut message is a long one: its attachments fall off the end, as they would when truncated.
  const text =
    extras === '' || cut ? body : phrases.withExtras(body.replace(/[.!?。！？]$/, ''), extras);
  return { text: truncate(text, options.maxLength, phrases, cut), kind: 'said' };
}

/** A poll as one text: "Pizza tonight? Options: yes and no", at most `maxLength`. */
function pollMessage(
  poll: NonNullable<ChatContent['poll']>,
  names: MentionNames,
  options: CleanupOptions,
  phrases: ReaderPhrases,
  dictionary: readonly DictionaryEntry[],
): SpokenMessage {
  const clean = (content: string) =>
    cleanMessage({ content, attachments: [], stickers: [] }, names, options, phrases, dictionary)
      .text;
  const question = clean(poll.question);
  const answers = poll.answers.map(clean).filter((answer) => answer !== '');
  const text =
    answers.length === 0
      ? question
      : phrases.poll(question === '' ? '' : endSentence(question, phrases), answers).trim();
  return { text: truncate(text, options.maxLength, phrases), kind: 'asked' };
}

/**
 * The start of `text`, at most `max` characters, ending after a word when one ends in its
 * second half (so no mention or link is cut through); and whether anything was cut.
 */
function cutAt(text: string, max: number): { text: string; cut: boolean } {
  if (text.length <= max) return { text, cut: false };
  let end = max;
  for (let i = max; i > max / 2; i--) {
    if (SPACE.test(text.charAt(i))) {
      end = i;
      break;
    }
  }
  // Nor through a mention, emoji or timestamp (`<@123…`) when the text has no space there.
  const open = text.lastIndexOf('<', end - 1);
  if (open > end - 100 && open > 0 && !text.slice(open, end).includes('>')) end = open;
  if (/[\uD800-\uDBFF]/.test(text.charAt(end - 1))) end -= 1;
  return { text: text.slice(0, end), cut: true };
}

/** The content's words, before the final pass. */
function speakableBody(
  content: string,
  names: MentionNames,
  options: CleanupOptions,
  phrases: ReaderPhrases,
  cut: boolean,
): string {
  const spoiler = (_: string, hidden: string) =>
    options.spoilers === 'read' ? ` ${hidden} ` : ' ';
  const codeBlock = ` ${endSentence(phrases.codeBlock, phrases)} `;
  const link = (url: string) => linkPhrase(url, phrases);
  let text = content
    .replace(/```[\s\S]*?```/g, codeBlock)
    .replace(/```[\s\S]*$/, codeBlock)
    .replace(/\|\|([\s\S]*?)\|\|/g, spoiler);
  // A spoiler whose end was cut off is still one: what it hides is not read.
  if (cut) text = text.replace(/\|\|([\s\S]*)$/, spoiler);
  text = text
    .replace(/`([^`\n]*)`/g, ' $1 ')
    .replace(MARKDOWN_LINK, (_, label: string, url: string) => `${label},${link(url)}`)
    .replace(
      RAW_URL,
      (match: string, lead: string, url: string) =>
        `${match.startsWith('<') ? ' ' : ''}${lead}${link(url)}`,
    )
    .replace(WWW, link)
    .replace(/<@!?(\d+)>/g, (_, id: string) => ` ${names.user(id) ?? phrases.someone} `)
    .replace(/<@&(\d+)>/g, (_, id: string) => ` ${names.role(id) ?? phrases.role} `)
    .replace(/<#(\d+)>/g, (_, id: string) => ` ${names.channel(id) ?? phrases.channel} `)
    .replace(/<\/([\w -]{1,100}):\d+>/g, ' $1 ')
    .replace(
      /<t:(-?\d{1,13})(?::[tTdDfFR])?>/g,
      (_, seconds: string) => ` ${dateWords(seconds, phrases)} `,
    )
    .replace(/<a?:(\w{1,64}):\d+>/g, (_, name: string) =>
      options.emoji === 'names' ? ` ${name.replace(/_/g, ' ')} ` : ' ',
    )
    .replace(/@(everyone|here)\b/g, '$1')
    .replace(/@(?=\w)/g, '');
  text = text.replace(EMOJI_RUN, (_, emoji: string) =>
    options.emoji === 'names' ? ` ${emojiName(emoji)} ` : ' ',
  );
  // Spaces within the line only: `^\s*` would rescan every blank line below each line start.
  text = text
    .replace(/^[^\S\n]*#{1,6}\s+/gm, '')
    .replace(/^[^\S\n]*-#\s+/gm, '')
    .replace(/^[^\S\n]*>{1,3}\s?/gm, '')
    .replace(/^[^\S\n]*[-*+]\s+/gm, '')
    .replace(/_/g, ' ')
    .replace(/[*~`|\\]/g, '');
  const lines = text
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter((line) => line !== '');
  return lines
    .map((line, i) =>
      i < lines.length - 1 && !/[.!?,;:。！？、]$/.test(line) ? endSentence(line, phrases) : line,
    )
    .join(' ');
}

/** "an image", "2 files and a sticker": what a message carries besides words. */
function extrasPhrase(message: ChatContent, phrases: ReaderPhrases): string {
  const counts = new Map<AttachmentKind, number>();
  for (const attachment of message.attachments) {
    const kind = attachmentKind(attachment);
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  const parts = [...counts].map(([kind, count]) => phrases.count(kind, count));
  const stickers = message.stickers.map((name) => finalPass(name, phrases).slice(0, 40));
  if (stickers.length > 0)
    parts.push(
      stickers.every((name) => name !== '')
        ? phrases.stickers(stickers)
        : phrases.count('sticker', stickers.length),
    );
  return phrases.list(parts);
}

function attachmentKind({ name, contentType }: AttachmentInfo): AttachmentKind {
  const type = contentType ?? '';
  const extension = /\.([a-z0-9]{1,5})$/i.exec(name)?.[1]?.toLowerCase() ?? '';
  if (type.startsWith('image/') || ['png', 'jpg', 'jpeg', 'gif', 'webp'].includes(extension))
    return 'image';
  if (type.startsWith('video/') || ['mp4', 'webm', 'mov'].includes(extension)) return 'video';
  if (type.startsWith('audio/') || ['mp3', 'ogg', 'wav', 'm4a'].includes(extension)) return 'audio';
  return 'file';
}

function dateWords(seconds: string, phrases: ReaderPhrases): string {
  const date = new Date(Number(seconds) * 1000);
  return Number.isNaN(date.getTime()) ? phrases.someDate : phrases.date(date);
}

/**
 * Enforces the invariants on any text (including dictionary replacements and names): no
 * invisible format character, no angle brackets (so no mention or emoji syntax), no markdown
 * markers, no raw URL, runs of repeated characters, chunks and words collapsed, one line.
 */
export function finalPass(text: string, phrases: ReaderPhrases): string {
  // Every format character, emoji joiners too: emoji are named before this pass.
  let out = text
    .replace(/\p{Cf}/gu, '')
    .replace(/[<>]/g, ' ')
    .replace(/_/g, ' ')
    .replace(/[*~`|\\]/g, '')
    .replace(/(?<!@)@+(?=\w)/g, '')
    .replace(/(\D)\1{3,}/gsu, '$1$1$1')
    .replace(/([^\s\d]{2,6}?)\1{3,}/gu, '$1$1$1')
    .replace(/(^|\s)(\S+)(?:\s+\2(?=\s|$)){3,}/gu, '$1$2 $2 $2');
  for (let i = 0; i < 5 && HAS_LINK.test(out); i++) {
    const link = (url: string) => linkPhrase(url, phrases);
    out = out
      .replace(URL, (_, lead: string, url: string) => `${lead}${link(url)}`)
      .replace(WWW, link);
  }
  return out
    .replace(/\s+/g, ' ')
    .replace(/ ([,.!?;:])(?=\s|$)/g, '$1')
    .replace(/^[\s#>\-.,;:]+/, '')
    .trim();
}

/**
 * Cuts text to `max` characters at a word, ending with "and more" in the phrases' language;
 * with `cut` (something was cut before), ends with "and more" even when it fits.
 */
export function truncate(text: string, max: number, phrases: ReaderPhrases, cut = false): string {
  if (!cut && text.length <= max) return text;
  const andMore = ` ${phrases.andMore}`;
  let end = Math.max(0, max - andMore.length);
  if (end >= text.length) end = text.length;
  else {
    const space = text.lastIndexOf(' ', end);
    if (space > end / 2) end = space;
  }
  if (/[\uD800-\uDBFF]/.test(text.charAt(end - 1))) end -= 1;
  const head = text.slice(0, end).replace(TRAILING_STOPS, '');
  return head === '' ? phrases.andMore.slice(0, max) : `${head}${andMore}`;
}
