import type { ChatInputCommandInteraction, Interaction } from 'discord.js';
import type { MentionNames } from '../speech/index.ts';

/** Display names for mentions in a command's text, from what Discord sent and the guild cache. */
export function mentionNames(interaction: ChatInputCommandInteraction): MentionNames {
  const guild = interaction.guild;
  return {
    user: (id) =>
      guild?.members.cache.get(id)?.displayName ??
      interaction.client.users.cache.get(id)?.displayName,
    role: (id) => guild?.roles.cache.get(id)?.name,
    channel: (id) => guild?.channels.cache.get(id)?.name,
  };
}

/** The voice channel the member is in, from the guild's voice states. */
export function memberVoiceChannel(interaction: Interaction): string | undefined {
  return interaction.guild?.voiceStates.cache.get(interaction.user.id)?.channelId ?? undefined;
}
