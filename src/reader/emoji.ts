/**
 * Spoken names of the Unicode emoji seen most in chat. Emoji not listed are spoken as
 * "emoji" (a full table would need a data package such as emojibase-data).
 */

const NAMES: Readonly<Record<string, string>> = {
  '😂': 'laughing',
  '🤣': 'rolling on the floor laughing',
  '😭': 'crying',
  '😍': 'heart eyes',
  '🥰': 'smiling with hearts',
  '😊': 'smiling',
  '🙂': 'slightly smiling',
  '😀': 'grinning',
  '😃': 'grinning',
  '😄': 'grinning',
  '😁': 'beaming',
  '😆': 'laughing',
  '😅': 'sweat smile',
  '😉': 'winking',
  '😎': 'cool',
  '🤔': 'thinking',
  '😐': 'neutral face',
  '😑': 'expressionless',
  '🙄': 'eye roll',
  '😏': 'smirking',
  '😢': 'sad',
  '😡': 'angry',
  '😠': 'angry',
  '🤬': 'cursing',
  '😱': 'screaming',
  '😳': 'flushed',
  '🥺': 'pleading',
  '😴': 'sleeping',
  '🤯': 'mind blown',
  '🥳': 'party face',
  '😇': 'angel',
  '🤡': 'clown',
  '💀': 'skull',
  '☠️': 'skull and crossbones',
  '👻': 'ghost',
  '🤖': 'robot',
  '💩': 'poop',
  '👍': 'thumbs up',
  '👎': 'thumbs down',
  '👏': 'clapping',
  '🙌': 'raised hands',
  '🙏': 'folded hands',
  '👋': 'waving',
  '🤝': 'handshake',
  '💪': 'flexed biceps',
  '👀': 'eyes',
  '🫡': 'salute',
  '✌️': 'victory hand',
  '🤞': 'fingers crossed',
  '👌': 'OK hand',
  '❤️': 'red heart',
  '❤': 'red heart',
  '💔': 'broken heart',
  '💯': 'hundred points',
  '🔥': 'fire',
  '✨': 'sparkles',
  '⭐': 'star',
  '🎉': 'party popper',
  '🎂': 'birthday cake',
  '🏆': 'trophy',
  '🎮': 'video game',
  '🍕': 'pizza',
  '🍿': 'popcorn',
  '☕': 'coffee',
  '🍺': 'beer',
  '🚀': 'rocket',
  '💎': 'gem',
  '👑': 'crown',
  '⚡': 'lightning',
  '🌈': 'rainbow',
  '✅': 'check mark',
  '❌': 'cross mark',
  '❓': 'question mark',
  '❗': 'exclamation mark',
  '⚠️': 'warning',
  '🐐': 'goat',
  '🐶': 'dog',
  '🐱': 'cat',
  '🦀': 'crab',
  '🍆': 'eggplant',
  '🧢': 'cap',
  '📈': 'chart going up',
  '📉': 'chart going down',
};

/** One emoji: a pictographic character with its modifiers, skin tones and joined parts. */
export const EMOJI_PATTERN =
  /(?:\p{Regional_Indicator}{2})|(?:[#*0-9]\uFE0F?\u20E3)|(?:\p{Extended_Pictographic}(?:\uFE0F|\p{Emoji_Modifier})*(?:\u200D\p{Extended_Pictographic}(?:\uFE0F|\p{Emoji_Modifier})*)*)/gu;

/** The spoken name of one emoji matched by {@link EMOJI_PATTERN}. */
export function emojiName(emoji: string): string {
  const exact = NAMES[emoji];
  if (exact !== undefined) return exact;
  const base = emoji.replace(/[\uFE0F\u200D]|\p{Emoji_Modifier}/gu, '');
  const first = [...base][0] ?? '';
  return NAMES[first] ?? NAMES[`${first}\uFE0F`] ?? 'emoji';
}
