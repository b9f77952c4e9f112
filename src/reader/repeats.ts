/**
 * Repeats collapsed: when several chatters send the same thing ("LUL", "lul", "LULLL") while
 * they wait together, it is read once as "7 people said LUL" and every one of them counts as
 * heard. Pure and linear in the text.
 */
import type { ChatLine } from './compose.ts';
import type { CrowdPhrases } from './crowd-phrases.ts';
import type { ReaderPhrases } from './phrases.ts';
import { endSentence } from './text.ts';

/** Messages that say the same thing, in arrival order; read as one. */
export interface RepeatGroup<M> {
  /** What they have in common (see {@link repeatKey}); '' for a message that joins no group. */
  readonly key: string;
  readonly messages: readonly M[];
  /** How many different chatters sent it. */
  readonly people: number;
}

const WORD = /[\p{L}\p{N}]/u;
const MARK = /\p{M}/u;
const SPACE = /\s/u;

/**
 * What a message says once case, accents, repeated letters, punctuation and repeated words are
 * folded: "LUL", "lul!!" and "LULLL lul" all give "lul". Empty when no letter or digit is left.
 */
export function repeatKey(text: string): string {
  let folded = '';
  for (const codePoint of text.toLowerCase()) {
    for (const c of codePoint.normalize('NFKD')) {
      if (MARK.test(c)) continue;
      const kept = WORD.test(c) ? c : SPACE.test(c) ? ' ' : '';
      if (kept !== '' && kept !== folded.at(-1)) folded += kept;
    }
  }
  const words: string[] = [];
  for (const word of folded.split(' ')) {
    if (word !== '' && word !== words.at(-1)) words.push(word);
  }
  return words.join(' ');
}

/**
 * Groups the messages waiting together by {@link repeatKey}, each group where its first message
 * was. Attachment-only messages ("sent") and messages with nothing to fold stay on their own.
 */
export function collapseRepeats<M extends Pick<ChatLine, 'authorId' | 'text' | 'kind'>>(
  messages: readonly M[],
): RepeatGroup<M>[] {
  const groups: { key: string; messages: M[]; authors: Set<string> }[] = [];
  const byKey = new Map<string, (typeof groups)[number]>();
  for (const message of messages) {
    const key = message.kind === 'said' ? repeatKey(message.text) : '';
    const group = key === '' ? undefined : byKey.get(key);
    if (group) {
      group.messages.push(message);
      group.authors.add(message.authorId);
      continue;
    }
    const fresh = { key, messages: [message], authors: new Set([message.authorId]) };
    groups.push(fresh);
    if (key !== '') byKey.set(key, fresh);
  }
  return groups.map(({ key, messages, authors }) => ({ key, messages, people: authors.size }));
}

/**
 * What is spoken for a group of two or more chatters, in the first message's words ("7 people
 * said LUL."); undefined for one chatter, whose messages are read once as usual.
 */
export function chorusText(
  group: RepeatGroup<Pick<ChatLine, 'text'>>,
  phrases: ReaderPhrases,
  crowd: CrowdPhrases,
): string | undefined {
  const first = group.messages[0];
  if (group.people < 2 || first === undefined) return undefined;
  return crowd.saidByMany(group.people, endSentence(first.text, phrases));
}

/**
 * The lines a batch is read as: with `choruses`, each group of repeats once (a chorus, or its
 * first message for one chatter); without, every message as it is.
 */
export function chorusLines<M extends ChatLine>(
  batch: readonly M[],
  choruses: boolean,
  phrases: ReaderPhrases,
  crowd: CrowdPhrases,
): ChatLine[] {
  if (!choruses) return [...batch];
  return collapseRepeats(batch).flatMap((group): ChatLine[] => {
    const lead = group.messages[0];
    if (lead === undefined) return [];
    const chorus = chorusText(group, phrases, crowd);
    return [chorus === undefined ? lead : { ...lead, text: chorus, crowd: true }];
  });
}
