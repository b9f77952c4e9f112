import {
  type GuildBasedChannel,
  type Interaction,
  PermissionFlagsBits,
  type PermissionResolvable,
  PermissionsBitField,
} from 'discord.js';
import { english, type Translator } from '../i18n/index.ts';
import { UserError } from '../refusal/index.ts';

/** A Discord permission the bot uses, by its flag name. */
export type BotPermission =
  | 'ViewChannel'
  | 'SendMessages'
  | 'EmbedLinks'
  | 'AttachFiles'
  | 'Connect'
  | 'Speak';

/**
 * Every permission the bot uses, and what for: the invite link asks for exactly these (never
 * Administrator), and each command checks the ones it needs where it needs them.
 */
export const BOT_PERMISSIONS = {
  /** See the channels it reads, answers and joins. */
  ViewChannel: PermissionFlagsBits.ViewChannel,
  /** The welcome message, voice notices, results sent after a restart. */
  SendMessages: PermissionFlagsBits.SendMessages,
  /** `/help` and `/voices` answer with embeds. */
  EmbedLinks: PermissionFlagsBits.EmbedLinks,
  /** `/say` with `output: file`, and results sent after a restart. */
  AttachFiles: PermissionFlagsBits.AttachFiles,
  /** `/join` and auto-join. */
  Connect: PermissionFlagsBits.Connect,
  /** Being heard once in voice. */
  Speak: PermissionFlagsBits.Speak,
} as const satisfies Record<BotPermission, bigint>;

/** The OAuth2 scopes of the invite: the bot user, and its slash commands. */
export const INVITE_SCOPES = ['bot', 'applications.commands'] as const;

/** The permission bits the invite link asks for: every one in {@link BOT_PERMISSIONS}. */
export const INVITE_PERMISSIONS: bigint = Object.values(BOT_PERMISSIONS).reduce(
  (all, bit) => all | bit,
  0n,
);

/** What a bot needs in a voice channel to be heard there. */
export const VOICE_PERMISSIONS = ['ViewChannel', 'Connect', 'Speak'] as const;

/** The link a server admin opens to add the bot (application `clientId`) to a server. */
export function inviteUrl(clientId: string): string {
  const query = new URLSearchParams({
    client_id: clientId,
    scope: INVITE_SCOPES.join(' '),
    permissions: INVITE_PERMISSIONS.toString(),
  });
  return `https://discord.com/oauth2/authorize?${query}`;
}

/** Which of `needed` a set of permissions lacks, in the order asked. */
export function missingPermissions(
  held: PermissionResolvable | null | undefined,
  needed: readonly BotPermission[],
): BotPermission[] {
  const bits = new PermissionsBitField(held ?? 0n);
  return needed.filter((name) => !bits.has(BOT_PERMISSIONS[name], true));
}

/**
 * Refuses when the bot lacks any of `needed` in `channel`, naming each missing permission (in
 * the member's language, as Discord's settings name it) and the channel; the next step is for a
 * member with Manage Server. Without `translator` (no member to tell) the names are English.
 * When the bot's own member is not cached the bot cannot tell, and lets Discord decide.
 */
export function requireBotPermissions(
  channel: GuildBasedChannel,
  needed: readonly BotPermission[],
  translator: Pick<Translator, 't'> = english,
): void {
  const me = channel.guild.members.me;
  if (me === null) return;
  refuseMissing(
    missingPermissions(channel.permissionsFor(me), needed),
    `<#${channel.id}>`,
    translator,
  );
}

/**
 * Refuses an interaction whose answer needs `needed` in its channel (Attach Files for a file
 * reply), from the permissions Discord says the bot has there.
 */
export function requireAppPermissions(
  interaction: Pick<Interaction, 'appPermissions' | 'channelId'>,
  needed: readonly BotPermission[],
  translator: Pick<Translator, 't'>,
): void {
  refuseMissing(
    missingPermissions(interaction.appPermissions, needed),
    `<#${interaction.channelId}>`,
    translator,
  );
}

/**
 * Refuses an answer the bot could not give here, before anything is generated or counted: a file
 * needs Attach Files in the command's channel, speech needs Speak in the bot's voice channel
 * (an admin may have moved it, or changed the channel, since `/join`).
 */
export function requireAnswerPermissions(
  interaction: Pick<Interaction, 'appPermissions' | 'channelId' | 'guild'>,
  output: 'file' | 'voice',
  botChannelId: string | undefined,
  translator: Pick<Translator, 't'>,
): void {
  if (output === 'file') {
    requireAppPermissions(interaction, ['AttachFiles'], translator);
    return;
  }
  const channel =
    botChannelId === undefined ? undefined : interaction.guild?.channels.cache.get(botChannelId);
  if (channel !== undefined) requireBotPermissions(channel, ['Speak'], translator);
}

/** Throws the refusal naming `missing` in `channel` (a mention), when anything is missing. */
export function refuseMissing(
  missing: readonly BotPermission[],
  channel: string,
  { t }: Pick<Translator, 't'>,
): void {
  if (missing.length === 0) return;
  const permissions = missing.map((name) => `**${t(`permissions.${name}`)}**`).join(', ');
  throw new UserError('bot_missing_permissions', { permissions, channel });
}
