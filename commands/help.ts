import { EmbedBuilder, MessageFlags } from 'discord.js';
import {
  type Command,
  definitionOf,
  guildCommand,
  helpFor,
  inviteUrl,
} from '../src/discord/index.ts';

export default {
  data: guildCommand('help'),

  // No store or API call: answered at once, privately, in the member's language.
  async execute(interaction, { commands, services, translator }) {
    const api = services.config.ttsApi.version;
    const help = helpFor(
      [...commands.values()].map((command) => definitionOf(command, api)),
      (permissions) => interaction.memberPermissions?.has(permissions) ?? false,
      translator,
      inviteUrl(interaction.applicationId),
    );
    await interaction.reply({
      embeds: [new EmbedBuilder().setTitle(help.title).setDescription(help.description)],
      flags: MessageFlags.Ephemeral,
      allowedMentions: { parse: [] },
    });
  },
} satisfies Command;
