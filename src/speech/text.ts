/** Names for the ids found in Discord mentions, looked up by the caller. */
export interface MentionNames {
  user(id: string): string | undefined;
  role(id: string): string | undefined;
  channel(id: string): string | undefined;
}

/**
 * Turns Discord message text into what should be spoken: mentions become
 * names, custom emoji their name, links the word "link", runs of spaces one.
 */
export function speakableText(text: string, names: MentionNames): string {
  return text
    .replace(/<@!?(\d+)>/g, (_, id: string) => names.user(id) ?? 'someone')
    .replace(/<@&(\d+)>/g, (_, id: string) => names.role(id) ?? 'a role')
    .replace(/<#(\d+)>/g, (_, id: string) => names.channel(id) ?? 'a channel')
    .replace(/<a?:(\w+):\d+>/g, (_, name: string) => name.replace(/_/g, ' '))
    .replace(/<t:(\d+)(?::\w)?>/g, (_, seconds: string) =>
      new Date(Number(seconds) * 1000).toUTCString(),
    )
    .replace(/https?:\/\/\S+/g, 'link')
    .replace(/@(everyone|here)\b/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * Text echoed back to Discord, made inert: no mention can resolve, no
 * markdown or link can change its look, and it fits in `max` characters.
 */
export function quoteSafely(text: string, max = 200): string {
  const short = text.length > max ? `${text.slice(0, max - 1)}…` : text;
  return short
    .replace(/[\\`*_~|>#[\]()-]/g, (ch) => `\\${ch}`)
    .replace(/@/g, '@\u200b')
    .replace(/<(?=[@#:at])/g, '<\u200b')
    .replace(/\n+/g, ' ');
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
const CONTROL_OR_SPACE = /[\u0000-\u001f\u007f\s]+/g;

/**
 * Text shown as inline code (a voice id, a generation id): one line, at most `max`
 * characters, no backtick that could end the span and let the rest render, and no
 * mention syntax.
 */
export function codeSpan(text: string, max = 100): string {
  const flat = text
    .replace(/`/g, 'ˋ')
    .replace(CONTROL_OR_SPACE, ' ')
    // Inert inside code already; also inert should the text ever be shown outside it.
    .replace(/<(?=[@#:at])/g, '<\u200b')
    .replace(/@(?=everyone|here)/g, '@\u200b');
  const short = flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
  return `\`${short === '' ? ' ' : short}\``;
}
