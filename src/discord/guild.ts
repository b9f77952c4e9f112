import {
  type ChatInputCommandInteraction,
  type Interaction,
  PermissionFlagsBits,
} from 'discord.js';
import type { Services } from '../services.ts';
import { serverClient } from '../settings/index.ts';
import type { TtsClient } from '../tts/index.ts';
import type { VoiceService } from '../voice/index.ts';
import { memberVoiceChannel } from './names.ts';
import { UserError } from './user-error.ts';

/** The guild an interaction came from, or a UserError for DMs. */
export function guildIdOf(interaction: Interaction): string {
  if (interaction.guildId === null) throw new UserError('not_in_guild', {});
  return interaction.guildId;
}

/** True when the member may configure the bot (Manage Server), checked at run time too. */
export function canManage(interaction: Interaction): boolean {
  return interaction.memberPermissions?.has(PermissionFlagsBits.ManageGuild) ?? false;
}

/** Refuses members without Manage Server. */
export function requireManager(interaction: Interaction): void {
  if (!canManage(interaction)) {
    throw new UserError('missing_permission', {});
  }
}

/** The TTS client for the server's key, or a UserError telling who can set one and how. */
export async function guildClient(
  interaction: Interaction,
  services: Services,
): Promise<TtsClient> {
  return serverClient(services, guildIdOf(interaction), canManage(interaction));
}

/**
 * Refuses playback controls (`/skip`, `/stop`, `/leave`) to members who are neither in the
 * bot's voice channel nor allowed to manage the server; returns the bot's channel.
 */
export function requireListener(
  interaction: ChatInputCommandInteraction,
  voice: Pick<VoiceService, 'channelOf'>,
): string {
  const guildId = guildIdOf(interaction);
  const botChannel = voice.channelOf(guildId);
  if (botChannel === undefined) {
    throw new UserError('not_in_voice', {});
  }
  if (memberVoiceChannel(interaction) !== botChannel && !canManage(interaction)) {
    throw new UserError('join_to_control', { channel: `<#${botChannel}>` });
  }
  return botChannel;
}
