/**
 * A member's own settings as `/myvoice` shows and changes them (their voice and language, the
 * same in every server; whether chat reads them and how their name is spoken, per server), and
 * the spoken name an admin sets for a member (`/config member-name`). The changes are pure.
 */
import type {
  GuildSettings,
  KeyvMemberSettings,
  MemberSettings,
  SettingsStore,
  UserSettings,
} from '../store/index.ts';

/** What `/myvoice reset` clears: everything the member set, or one of their settings. */
export const RESET_SCOPES = ['everything', 'voice', 'language', 'name'] as const;
/** One of {@link RESET_SCOPES}. */
export type ResetScope = (typeof RESET_SCOPES)[number];

/** What a member asked of `/myvoice`: `reset` first, then each setting given (already checked). */
export interface MemberChange {
  readonly reset?: ResetScope | undefined;
  readonly voiceId?: string | undefined;
  /** An ISO 639-1 code the server's model speaks. */
  readonly language?: string | undefined;
  /** false: not read in this server; true: read again. */
  readonly read?: boolean | undefined;
  /** A spoken name, normalized (`normalizeSpokenName`). */
  readonly name?: string | undefined;
}

/** What `/myvoice` shows a member. */
export interface MemberView {
  readonly user: UserSettings;
  readonly member: MemberSettings;
  /** An admin set the server's reader to ignore them (`ignoredMembers`). */
  readonly ignored: boolean;
}

/** The stores a member's settings live in. */
export interface MemberStores {
  readonly settings: Pick<SettingsStore, 'guild' | 'user' | 'setUser' | 'deleteUser'>;
  readonly members: Pick<KeyvMemberSettings, 'get' | 'update' | 'forget'>;
}

/** True when the change has nothing to do: a bare `/myvoice`, which shows. */
export function isEmptyChange(change: MemberChange): boolean {
  return Object.values(change).every((value) => value === undefined);
}

/** The member's voice and language after `change` (its reset first). Pure. */
export function userAfter(user: UserSettings, change: MemberChange): UserSettings {
  const { reset } = change;
  const voiceId = change.voiceId ?? (clears(reset, 'voice') ? undefined : user.voiceId);
  const language = change.language ?? (clears(reset, 'language') ? undefined : user.language);
  return {
    ...(voiceId === undefined ? {} : { voiceId }),
    ...(language === undefined ? {} : { language }),
  };
}

/** The member's settings in the server after `change` (its reset first); `read` kept only as false. Pure. */
export function memberAfter(member: MemberSettings, change: MemberChange): MemberSettings {
  const read = change.read ?? (clears(change.reset, 'everything') ? undefined : member.read);
  const named =
    change.name !== undefined
      ? { name: change.name, nameBy: 'member' as const }
      : clears(change.reset, 'name') || member.name === undefined
        ? {}
        : { name: member.name, ...(member.nameBy === undefined ? {} : { nameBy: member.nameBy }) };
  return { ...(read === false ? { read } : {}), ...named };
}

/** True when `reset` clears `setting` (`everything` clears each). */
function clears(reset: ResetScope | undefined, setting: ResetScope): boolean {
  return reset === 'everything' || reset === setting;
}

/** What the member set, as `/myvoice` shows it. */
export async function memberView(
  stores: MemberStores,
  guildId: string,
  userId: string,
): Promise<MemberView> {
  const [guild, user, member]: [GuildSettings, UserSettings, MemberSettings] = await Promise.all([
    stores.settings.guild(guildId),
    stores.settings.user(userId),
    stores.members.get(guildId, userId),
  ]);
  return { user, member, ignored: guild.reader.ignoredMembers.includes(userId) };
}

/**
 * Applies a member's `/myvoice` change. `reset: everything` is the member's own request to be
 * forgotten: their voice and language record and their settings in this server are deleted
 * (then whatever else the change sets is stored anew).
 */
export async function changeMember(
  stores: MemberStores,
  guildId: string,
  userId: string,
  change: MemberChange,
): Promise<void> {
  const { settings, members } = stores;
  const everything = change.reset === 'everything';
  if (everything) await Promise.all([settings.deleteUser(userId), members.forget(guildId, userId)]);
  const rest = everything ? { ...change, reset: undefined } : change;
  const { reset, voiceId, language, read, name } = rest;
  if (reset === 'voice' || reset === 'language' || voiceId !== undefined || language !== undefined)
    await settings.setUser(userId, userAfter(await settings.user(userId), rest));
  if (reset === 'name' || read !== undefined || name !== undefined)
    await members.update(guildId, userId, (member) => memberAfter(member, rest));
}

/**
 * An admin's `/config member-name`: the member's spoken name in the server, set (as the
 * admin's) or cleared with undefined; their other settings stay. Resolves with what was stored.
 */
export function setSpokenName(
  members: Pick<KeyvMemberSettings, 'update'>,
  guildId: string,
  userId: string,
  name: string | undefined,
): Promise<MemberSettings> {
  return members.update(guildId, userId, ({ read }) => ({
    ...(read === undefined ? {} : { read }),
    ...(name === undefined ? {} : { name, nameBy: 'admin' as const }),
  }));
}
