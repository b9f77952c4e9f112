import { EmbedBuilder, MessageFlags, SlashCommandBuilder } from 'discord.js';
import { type Command, described, helpFor } from '../src/discord/index.ts';

export default {
  data: described(
    new SlashCommandBuilder().setName('help'),
    'commands.help.description',
  ).setContexts(0),

  // No store or API call: answered at once, privately, in the member's language.
  async execute(interaction, { commands, translator }) {
    const help = helpFor(
      [...commands.values()].map((command) => command.data.toJSON()),
      (permissions) => interaction.memberPermissions?.has(permissions) ?? false,
      translator,
    );
    await interaction.reply({
      embeds: [new EmbedBuilder().setTitle(help.title).setDescription(help.description)],
      flags: MessageFlags.Ephemeral,
      allowedMentions: { parse: [] },
    });
  },
} satisfies Command;
