/** `/config show`: the server's key (masked), defaults and generation budget. */
import { MessageFlags } from 'discord.js';
import { described, guildIdOf, type SubcommandPart } from '../../src/discord/index.ts';
import { configSummary, describeSummary } from '../../src/settings/index.ts';

export default {
  names: ['show'],

  build: (builder) =>
    builder.addSubcommand((sub) => described(sub.setName('show'), 'commands.config.show')),

  async execute(interaction, { services, translator }) {
    const guildId = guildIdOf(interaction);
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    const summary = await configSummary(services, guildId);
    await interaction.editReply({
      content: describeSummary(translator, summary),
      allowedMentions: { parse: [] },
    });
  },
} satisfies SubcommandPart;
