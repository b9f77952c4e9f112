/**
 * What a chat turn says: its batch's lines (a chorus read once, in a busy chat) composed in the
 * language of the batch's voice, and each line as it would be said alone, for what merging saved.
 */
import type { ReaderSettings } from '../store/index.ts';
import { composeBatch, type LastRead } from './compose.ts';
import type { CrowdPhrases } from './crowd-phrases.ts';
import { linePhrases } from './line-phrases.ts';
import type { ReaderPhrases } from './phrases.ts';
import { chorusLines } from './repeats.ts';
import type { ReaderMessage } from './turn.ts';

/** How {@link turnText} composes a batch. */
export interface TurnTextOptions {
  /** Choruses read once (a busy chat). */
  readonly busyChat: boolean;
  readonly minTextLength: number;
  /** Read with the compact glue ("Bobby, …"). */
  readonly compact: boolean;
  /** What the previous turn read (for "X said" again or not). */
  readonly last: LastRead | undefined;
}

/** What {@link turnText} composed. */
export interface TurnText {
  readonly text: string;
  /** What this turn read, for the next. */
  readonly last: LastRead | undefined;
  /** Each line as it would be said in a generation of its own, when the batch merged several. */
  readonly alone: string[] | undefined;
}

/** The text of a batch (not empty) in its first message's voice, with the server's settings and phrases. */
export function turnText(
  batch: readonly ReaderMessage[],
  voiceLanguage: string | undefined,
  current: {
    readonly settings?: ReaderSettings;
    readonly phrases: ReaderPhrases;
    readonly crowd: CrowdPhrases;
  },
  options: TurnTextOptions,
): TurnText {
  const { settings } = current;
  // A batch merges lines of one voice, so of one language: its glue is in that language.
  const { phrases, crowd } = linePhrases(current, voiceLanguage);
  const lines = chorusLines(batch, options.busyChat, phrases, crowd);
  const compose = {
    saidPrefix: settings?.saidPrefix ?? true,
    minLength: options.minTextLength,
    phrases,
  };
  const { text, last } = composeBatch(lines, {
    ...compose,
    compact: options.compact,
    last: options.last,
  });
  const alone =
    lines.length > 1
      ? lines.map(
          (line) => composeBatch([line], { ...compose, compact: false, last: undefined }).text,
        )
      : undefined;
  return { text, last, alone };
}
