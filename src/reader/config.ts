/**
 * `/config reader`, `read-channel`, `dictionary` and `block-word` as pure changes to the stored settings,
 * with the text that describes them. Throws a UserError for values out of bounds.
 */
import type { Translator } from '../i18n/index.ts';
import { UserError } from '../refusal/index.ts';
import { codeSpan } from '../speech/index.ts';
import {
  type DictionaryEntry,
  dictionaryEntrySchema,
  READER_BOUNDS,
  type ReaderSettings,
  TWITCH_BADGES,
} from '../store/index.ts';
import { twitchLogin } from '../twitch/index.ts';
import { withEntry, withoutWord } from './dictionary.ts';

/** The options of `/config reader` as typed (absent: keep the current value). */
export interface ReaderOptionsInput {
  readonly saidPrefix?: boolean | undefined;
  readonly readBots?: ReaderSettings['readBots'] | undefined;
  readonly ignorePrefixes?: string | undefined;
  readonly ignoreMember?: string | undefined;
  readonly ignoreRole?: string | undefined;
  readonly voiceMembersOnly?: boolean | undefined;
  readonly voiceChat?: boolean | undefined;
  readonly silent?: ReaderSettings['silent'] | undefined;
  readonly autoJoin?: boolean | undefined;
  readonly maxLength?: number | undefined;
  readonly maxAge?: string | undefined;
  readonly emoji?: ReaderSettings['emoji'] | undefined;
  readonly spoilers?: ReaderSettings['spoilers'] | undefined;
  readonly blocked?: ReaderSettings['blocked'] | undefined;
  readonly priorityRole?: string | undefined;
  readonly maxSpeed?: number | undefined;
  /** A duration (`10m`), or `off`/`0`. */
  readonly newMemberDelay?: string | undefined;
  /** Space-separated badges (`moderator vip`), or `everyone`. */
  readonly twitchBadges?: string | undefined;
  readonly voices?: ReaderSettings['voices'] | undefined;
  readonly forwards?: boolean | undefined;
  readonly chatVoices?: ReaderSettings['chatVoices'] | undefined;
}

const UNITS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

/** A duration written like the bot's others (`90s`, `2m`, `1h`) in ms; undefined when unreadable. */
export function parseDuration(text: string): number | undefined {
  const match = /^\s*(\d{1,7})\s*(ms|s|m|h)\s*$/i.exec(text);
  if (match === null) return undefined;
  const unit = (match[2] ?? '').toLowerCase() as keyof typeof UNITS;
  return Number(match[1]) * UNITS[unit];
}

/** A duration in the shortest exact unit: `2m`, `90s`, `1h`. */
export function formatDuration(ms: number): string {
  for (const unit of ['h', 'm', 's'] as const) {
    if (ms % UNITS[unit] === 0) return `${ms / UNITS[unit]}${unit}`;
  }
  return `${ms}ms`;
}

/** The deprecated `/config reader` toggle: `id` leaves `list` when on it, else joins it (within its limit). */
const toggled = (settings: ReaderSettings, list: ReaderList, id: string): string[] =>
  changeReaderList(settings, list, settings[list].includes(id) ? 'remove' : 'add', id)[list];

/** The reader settings with the given options applied; an option left out keeps its value. */
export function applyReaderOptions(
  current: ReaderSettings,
  input: ReaderOptionsInput,
): ReaderSettings {
  const next = { ...current };
  if (input.saidPrefix !== undefined) next.saidPrefix = input.saidPrefix;
  if (input.readBots !== undefined) next.readBots = input.readBots;
  if (input.voiceMembersOnly !== undefined) next.voiceMembersOnly = input.voiceMembersOnly;
  if (input.autoJoin !== undefined) next.autoJoin = input.autoJoin;
  if (input.voiceChat !== undefined) next.voiceChat = input.voiceChat;
  if (input.silent !== undefined) next.silent = input.silent;
  if (input.emoji !== undefined) next.emoji = input.emoji;
  if (input.spoilers !== undefined) next.spoilers = input.spoilers;
  if (input.blocked !== undefined) next.blocked = input.blocked;
  if (input.priorityRole !== undefined)
    next.priorityRoles = toggled(current, 'priorityRoles', input.priorityRole);
  if (input.maxSpeed !== undefined) {
    const { min, max } = READER_BOUNDS.maxSpeed;
    // Discord bounds the option already; a stray value is brought within them.
    next.maxSpeed = Math.min(max, Math.max(min, Math.round(input.maxSpeed * 100) / 100));
  }
  if (input.newMemberDelay !== undefined) {
    const text = input.newMemberDelay.trim().toLowerCase();
    const ms = text === 'off' || text === '0' ? 0 : parseDuration(text);
    const { max } = READER_BOUNDS.newMemberDelayMs;
    if (ms === undefined || ms > max)
      throw new UserError('reader_new_member_delay', { max: formatDuration(max) });
    next.newMemberDelayMs = ms;
  }
  if (input.voices !== undefined) next.voices = input.voices;
  if (input.forwards !== undefined) next.forwards = input.forwards;
  if (input.chatVoices !== undefined) next.chatVoices = input.chatVoices;
  if (input.twitchBadges !== undefined) next.twitchBadges = parseBadges(input.twitchBadges);
  if (input.ignorePrefixes !== undefined) {
    const words = input.ignorePrefixes.split(/\s+/).filter((word) => word !== '');
    const prefixes = words.length === 1 && words[0]?.toLowerCase() === 'none' ? [] : words;
    if (prefixes.length > READER_BOUNDS.ignorePrefixes || prefixes.some((p) => p.length > 20))
      throw new UserError('reader_prefixes', { max: READER_BOUNDS.ignorePrefixes });
    next.ignorePrefixes = [...new Set(prefixes)];
  }
  if (input.ignoreMember !== undefined)
    next.ignoredMembers = toggled(current, 'ignoredMembers', input.ignoreMember);
  if (input.ignoreRole !== undefined)
    next.ignoredRoles = toggled(current, 'ignoredRoles', input.ignoreRole);
  if (input.maxLength !== undefined) {
    const { min, max } = READER_BOUNDS.maxLength;
    if (!Number.isInteger(input.maxLength) || input.maxLength < min || input.maxLength > max)
      throw new UserError('reader_max_length', { min, max });
    next.maxLength = input.maxLength;
  }
  if (input.maxAge !== undefined) {
    const { min, max } = READER_BOUNDS.maxAgeMs;
    const ms = parseDuration(input.maxAge);
    if (ms === undefined || ms < min || ms > max)
      throw new UserError('reader_max_age', { min: formatDuration(min), max: formatDuration(max) });
    next.maxAgeMs = ms ?? current.maxAgeMs;
  }
  return next;
}

/** `moderator vip` → those badges; `everyone` (or nothing) → none kept, everyone is read. */
function parseBadges(text: string): ReaderSettings['twitchBadges'] {
  const words = text
    .toLowerCase()
    .split(/[\s,]+/)
    .filter((word) => word !== '');
  if (words.length === 0 || (words.length === 1 && words[0] === 'everyone')) return [];
  const badges = TWITCH_BADGES.filter((badge) => words.includes(badge));
  if (badges.length !== new Set(words).size)
    throw new UserError('reader_twitch_badges', { badges: TWITCH_BADGES.join(' ') });
  return badges;
}

/** What changed for `ignore-member` / `ignore-role`, said plainly (they toggle), in `t`'s language. */
export function toggleNotes(
  { t }: Translator,
  before: ReaderSettings,
  input: ReaderOptionsInput,
): string[] {
  const notes: string[] = [];
  if (input.ignoreMember !== undefined) {
    const member = `<@${input.ignoreMember}>`;
    const was = before.ignoredMembers.includes(input.ignoreMember);
    notes.push(t(was ? 'reader.member_read_again' : 'reader.member_ignored', { member }));
  }
  if (input.ignoreRole !== undefined) {
    const role = `<@&${input.ignoreRole}>`;
    const was = before.ignoredRoles.includes(input.ignoreRole);
    notes.push(t(was ? 'reader.role_read_again' : 'reader.role_ignored', { role }));
  }
  if (input.priorityRole !== undefined) {
    const role = `<@&${input.priorityRole}>`;
    const was = before.priorityRoles.includes(input.priorityRole);
    notes.push(t(was ? 'reader.priority_role_removed' : 'reader.priority_role_added', { role }));
  }
  return notes;
}

/** The groups `/config show` and `/config read` show the reader's settings in, as the commands are. */
export type ReaderSection = 'who' | 'sound' | 'pace' | 'lists' | 'twitch';

/**
 * The reader settings in words, by section (what `/config read who|sound|pace`, the list
 * subcommands and `/config twitch read` change), in `t`'s language, with how many words are
 * blocked. Option names and choice values stay as typed in the command (not localized).
 */
export function readerSections(
  { t }: Translator,
  settings: ReaderSettings,
  blockedWords = 0,
): Record<ReaderSection, string[]> {
  const list = (items: readonly string[], render: (item: string) => string): string =>
    items.length === 0 ? t('reader.none') : items.map(render).join(', ');
  const onOff = (on: boolean): string => t(on ? 'reader.on' : 'reader.off');
  const prefixes = settings.ignorePrefixes.map((p) => `\`${p.replace(/`/g, 'ˋ')}\``).join(' ');
  return {
    who: [
      `**read-bots:** ${settings.readBots}`,
      `**ignore-prefixes:** ${prefixes === '' ? t('reader.none') : prefixes}`,
      `**voice-members-only:** ${onOff(settings.voiceMembersOnly)}`,
      `**voice-chat:** ${onOff(settings.voiceChat)}`,
      `**silent:** ${settings.silent}`,
      `**new-member-delay:** ${settings.newMemberDelayMs === 0 ? t('reader.off') : formatDuration(settings.newMemberDelayMs)}`,
      `**forwards:** ${onOff(settings.forwards)}`,
    ],
    sound: [
      `**said-prefix:** ${onOff(settings.saidPrefix)}`,
      `**emoji:** ${settings.emoji}`,
      `**spoilers:** ${settings.spoilers}`,
      `**blocked:** ${settings.blocked}`,
      t('reader.show_blocked_words', { count: blockedWords }),
      `**voices:** ${settings.voices}`,
    ],
    pace: [
      `**max-length:** ${t('reader.characters', { length: settings.maxLength })}`,
      `**max-age:** ${formatDuration(settings.maxAgeMs)}`,
      `**max-speed:** ${settings.maxSpeed === 1 ? t('reader.off') : `×${settings.maxSpeed}`}`,
      `**auto-join:** ${onOff(settings.autoJoin)}`,
    ],
    lists: [
      t('reader.show_members', { value: list(settings.ignoredMembers, (id) => `<@${id}>`) }),
      t('reader.show_roles', { value: list(settings.ignoredRoles, (id) => `<@&${id}>`) }),
      t('reader.show_priority_roles', {
        value: list(settings.priorityRoles, (id) => `<@&${id}>`),
      }),
    ],
    twitch: [
      t('reader.show_twitch', {
        value: list(settings.twitchChannels, (login) => `\`${login}\``),
      }),
      twitchBadgesLine({ t }, settings),
      chatVoicesLine(settings),
      // Said where it matters: the member-based options read as if they covered everyone.
      ...(settings.twitchChannels.length > 0 ? [t('reader.show_twitch_chatters')] : []),
    ],
  };
}

/** Which Twitch chatters are read (`/config twitch read badges`), in words. */
export function twitchBadgesLine({ t }: Pick<Translator, 't'>, settings: ReaderSettings): string {
  return `**twitch-badges:** ${settings.twitchBadges.join(' ') || t('reader.everyone')}`;
}

/** Which voices Twitch chatters may pick with `!voice` (`/config twitch read chat-voices`). */
export function chatVoicesLine(settings: ReaderSettings): string {
  return `**chat-voices:** ${settings.chatVoices}`;
}

/** Every reader setting in words (the old `/config reader`), in `t`'s language. */
export function describeReader(
  translator: Translator,
  settings: ReaderSettings,
  blockedWords = 0,
): string {
  const sections = readerSections(translator, settings, blockedWords);
  const channels = settings.channels.map((id) => `<#${id}>`).join(', ');
  return [
    translator.t('reader.show_channels', { value: channels || translator.t('reader.none') }),
    ...sections.who,
    ...sections.sound,
    ...sections.pace,
    ...sections.lists,
    ...sections.twitch,
  ].join('\n');
}

/** The reader lists an admin adds to and removes from, one id at a time. */
export type ReaderList = 'ignoredMembers' | 'ignoredRoles' | 'priorityRoles';

const LIST_LIMITS: Record<
  ReaderList,
  {
    max: number;
    refusal: 'reader_ignored_members' | 'reader_ignored_roles' | 'reader_priority_roles';
  }
> = {
  ignoredMembers: { max: READER_BOUNDS.ignored, refusal: 'reader_ignored_members' },
  ignoredRoles: { max: READER_BOUNDS.ignored, refusal: 'reader_ignored_roles' },
  priorityRoles: { max: READER_BOUNDS.priorityRoles, refusal: 'reader_priority_roles' },
};

/**
 * The settings with `id` added to or removed from `list`: adding an id already there, or
 * removing one that is not, changes nothing (unlike the old toggles). Refused past the limit.
 */
export function changeReaderList(
  settings: ReaderSettings,
  list: ReaderList,
  action: 'add' | 'remove',
  id: string,
): ReaderSettings {
  const current = settings[list];
  if (action === 'remove') return { ...settings, [list]: current.filter((x) => x !== id) };
  if (current.includes(id)) return settings;
  const { max, refusal } = LIST_LIMITS[list];
  if (current.length >= max) throw new UserError(refusal, { max });
  return { ...settings, [list]: [...current, id] };
}

/** The read channels with `channelId` added; refused past the limit. */
export function addReadChannel(settings: ReaderSettings, channelId: string): ReaderSettings {
  if (settings.channels.includes(channelId)) return settings;
  if (settings.channels.length >= READER_BOUNDS.channels)
    throw new UserError('reader_channels_full', { max: READER_BOUNDS.channels });
  return { ...settings, channels: [...settings.channels, channelId] };
}

/** The read channels without `channelId`. */
export function removeReadChannel(settings: ReaderSettings, channelId: string): ReaderSettings {
  return { ...settings, channels: settings.channels.filter((id) => id !== channelId) };
}

/** The Twitch channels read with `channel` added (a login, `#name` or a twitch.tv address); refused past the limit. */
export function addTwitchChannel(settings: ReaderSettings, channel: string): ReaderSettings {
  const login = twitchChannelName(channel);
  if (settings.twitchChannels.includes(login)) return settings;
  if (settings.twitchChannels.length >= READER_BOUNDS.twitchChannels)
    throw new UserError('twitch_channels_full', { max: READER_BOUNDS.twitchChannels });
  return { ...settings, twitchChannels: [...settings.twitchChannels, login] };
}

/** The Twitch channels read without `channel`. */
export function removeTwitchChannel(settings: ReaderSettings, channel: string): ReaderSettings {
  const login = twitchChannelName(channel);
  return { ...settings, twitchChannels: settings.twitchChannels.filter((c) => c !== login) };
}

/** The login of a channel as typed: `name`, `#name`, `twitch.tv/name`; refused when it cannot be one. */
export function twitchChannelName(typed: string): string {
  const login = twitchLogin(typed.trim().replace(/^(?:https?:\/\/)?(?:www\.)?twitch\.tv\//i, ''));
  if (login === undefined)
    throw new UserError('twitch_channel_name', { channel: codeSpan(typed, 40) });
  return login;
}

/** The dictionary with a checked entry added (or replaced); refused past the limit. */
export function addDictionaryEntry(
  entries: readonly DictionaryEntry[],
  word: string,
  replacement: string,
): DictionaryEntry[] {
  const parsed = dictionaryEntrySchema.safeParse({ word, replacement });
  if (!parsed.success)
    throw new UserError('reader_word', {
      word: READER_BOUNDS.word,
      replacement: READER_BOUNDS.replacement,
    });
  const entry = parsed.data ?? { word, replacement };
  const next = withEntry(entries, entry);
  if (next.length > READER_BOUNDS.dictionary)
    throw new UserError('reader_dictionary_full', { max: READER_BOUNDS.dictionary });
  return next;
}

/** The dictionary without `word`, and whether it was there. */
export function removeDictionaryEntry(
  entries: readonly DictionaryEntry[],
  word: string,
): { entries: DictionaryEntry[]; removed: boolean } {
  return withoutWord(entries, word);
}

const HAS_WORD = /[\p{L}\p{N}]/u;

/** The blocked words with `word` added (once, any case); refused when unfit or past the limit. */
export function addBlockedWord(words: readonly string[], word: string): string[] {
  const trimmed = word.trim();
  if (trimmed.length > READER_BOUNDS.blockedWordLength || !HAS_WORD.test(trimmed))
    throw new UserError('reader_blocked_word', { max: READER_BOUNDS.blockedWordLength });
  const wanted = trimmed.toLowerCase();
  if (words.some((w) => w.toLowerCase() === wanted)) return [...words];
  if (words.length >= READER_BOUNDS.blockedWords)
    throw new UserError('reader_blocked_full', { max: READER_BOUNDS.blockedWords });
  return [...words, trimmed];
}

/** The blocked words without `word` (any case), and whether it was there. */
export function removeBlockedWord(
  words: readonly string[],
  word: string,
): { words: string[]; removed: boolean } {
  const wanted = word.trim().toLowerCase();
  const kept = words.filter((w) => w.toLowerCase() !== wanted);
  return { words: kept, removed: kept.length < words.length };
}
