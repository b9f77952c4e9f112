/**
 * The pure parts of the busy-chat benchmark: the chat it plays (who says what, when), which
 * messages a set of generated texts read aloud, and when a client that speaks every message
 * in order would have finished playing them.
 */

/** One chat message of the benchmark. */
export interface ChatLineSpec {
  readonly index: number;
  /** Offset from the start of the chat, in ms (already time-scaled). */
  readonly atMs: number;
  /** Index of the member who sends it. */
  readonly member: number;
  readonly text: string;
}

/** What the chat looks like. */
export interface ChatShape {
  readonly messages: number;
  readonly members: number;
  /** How long the chat lasts, in ms (already time-scaled). */
  readonly durationMs: number;
  /** Seed of the pseudo-random draw, so every run plays the same chat. */
  readonly seed?: number;
}

const FILLER = [
  'that',
  'was',
  'a',
  'great',
  'play',
  'did',
  'you',
  'see',
  'the',
  'last',
  'round',
  'wow',
  'lol',
  'nice',
  'shot',
  'we',
  'need',
  'more',
  'of',
  'this',
  'stream',
  'today',
];

/** Mulberry32: a small seeded generator of numbers in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * A chat of `messages` lines over `durationMs` from `members` members: send times drawn
 * uniformly and sorted (a steady but uneven stream), authors drawn uniformly, texts of 12 to
 * 80 characters that start with `Message <index>` so a generated text shows which it read.
 */
export function chatScript(shape: ChatShape): ChatLineSpec[] {
  const random = seededRandom(shape.seed ?? 20_261_123);
  const times = Array.from({ length: shape.messages }, () =>
    Math.round(random() * shape.durationMs),
  ).sort((a, b) => a - b);
  return times.map((atMs, index) => {
    const member = Math.floor(random() * shape.members);
    const length = 12 + Math.floor(random() * 69);
    let text = `Message ${index}`;
    while (text.length < length) text += ` ${FILLER[Math.floor(random() * FILLER.length)]}`;
    return { index, atMs, member, text };
  });
}

/** Indices of the benchmark's messages that appear in the given generated texts. */
export function messagesRead(texts: readonly string[]): Set<number> {
  const read = new Set<number>();
  for (const text of texts) {
    for (const match of text.matchAll(/\bMessage (\d+)\b/g)) read.add(Number(match[1]));
  }
  return read;
}

/** When one message's audio was in hand, and how long it plays. */
export interface ReadyAudio {
  readonly readyAt: number;
  readonly durationMs: number;
}

/**
 * When the last of `audios` ends if each plays in the given order, back to back, none
 * before its audio is in hand: how a client that speaks every message in order drains.
 */
export function playedInOrderUntil(audios: readonly ReadyAudio[]): number {
  let end = Number.NEGATIVE_INFINITY;
  for (const audio of audios) end = Math.max(end, audio.readyAt) + audio.durationMs;
  return end;
}

/** The repeated phrases of the spammy chat, in the spellings chatters use. */
export const SPAM_PHRASES = [
  'LUL',
  'lul',
  'LULLL',
  'KEKW',
  'kekw',
  'PogChamp',
  'POGCHAMP',
  'monkaS',
];
const SPAM_WORD = /\b(?:lu+l+|kekw|pogchamp|monkas)\b/gi;

/**
 * A spammy chat: like {@link chatScript}, but a third of the messages are repeats of a few
 * phrases (from anyone but the flooder), and member 0 (the flooder) posts a fifth of everything,
 * each line its own `Message <index>`.
 */
export function spammyScript(shape: ChatShape): ChatLineSpec[] {
  const random = seededRandom((shape.seed ?? 20_261_124) + 1);
  return chatScript(shape).map((line) => {
    const draw = random();
    if (draw < 0.2) return { ...line, member: 0 };
    const member = 1 + Math.floor(random() * (shape.members - 1));
    if (draw < 0.2 + 1 / 3) {
      const text = SPAM_PHRASES[Math.floor(random() * SPAM_PHRASES.length)] ?? 'LUL';
      return { ...line, member, text };
    }
    return { ...line, member };
  });
}

/**
 * How many of a spammy chat's messages were heard, from the texts played and the bot's count
 * of messages heard within a chorus (each chorus or repeat read counts once in the texts).
 */
export function heardOfSpammy(
  texts: readonly string[],
  script: readonly ChatLineSpec[],
  collapsed: number,
): { heard: number; flooder: number } {
  const read = messagesRead(texts);
  const spoken = texts.reduce((sum, text) => sum + (text.match(SPAM_WORD)?.length ?? 0), 0);
  const flooder = script.filter((line) => line.member === 0 && read.has(line.index)).length;
  return { heard: read.size + spoken + collapsed, flooder };
}
