import {
  type ChatInputCommandInteraction,
  type Interaction,
  PermissionFlagsBits,
} from 'discord.js';
import { UserError } from '../refusal/index.ts';
import type { Services } from '../services.ts';
import { serverClient } from '../settings/index.ts';
import { findVoice } from '../speech/index.ts';
import { MODELS, type TtsClient, type Voice } from '../tts/index.ts';
import type { VoiceService } from '../voice/index.ts';
import type { Command, CommandContext } from './command.ts';
import { memberVoiceChannel } from './names.ts';

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
 * The voice with this id among the server key's voices (any model); undefined when the key has
 * none such. Refused like {@link guildClient} when the server has no key.
 */
export async function serverVoice(
  interaction: Interaction,
  services: Services,
  voiceId: string,
): Promise<Voice | undefined> {
  const client = await guildClient(interaction, services);
  let voice: Voice | undefined;
  for (const model of MODELS) voice ??= findVoice(await client.voices(model), voiceId);
  return voice;
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

/**
 * The `execute` of a playback control (`/skip`, `/stop`): for the members listening (or
 * managers), answered in public with what `act` did on the server, or with its refusal.
 */
export function forListeners(
  act: (guildId: string, context: CommandContext) => string,
): Command['execute'] {
  return async (interaction, context) => {
    requireListener(interaction, context.services.voice);
    const content = act(guildIdOf(interaction), context);
    await interaction.reply({ content, allowedMentions: { parse: [] } });
  };
}
