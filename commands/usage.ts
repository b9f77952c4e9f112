import { EmbedBuilder, MessageFlags } from 'discord.js';
import {
  type Command,
  canManage,
  described,
  guildClient,
  guildCommand,
  guildIdOf,
} from '../src/discord/index.ts';
import { gatherUsage, usageChart, usageLines } from '../src/usage/index.ts';

export default {
  data: guildCommand('usage'),
  // v3 has no daily quota: it bills money, which a daily budget bounds.
  dataFor: (api) =>
    api === 'v3'
      ? described(guildCommand('usage'), 'commands.usage.description_v3')
      : guildCommand('usage'),

  async execute(interaction, { services, translator }) {
    const { t } = translator;
    const guildId = guildIdOf(interaction);
    // Answer before the store and the API: both can outlast Discord's 3 s.
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    const client = await guildClient(interaction, services);
    const figures = await gatherUsage(services, {
      guildId,
      memberId: interaction.user.id,
      manager: canManage(interaction),
      client,
    });
    const lines = usageLines(translator, figures);
    const embed = new EmbedBuilder()
      .setTitle(t('usage.title'))
      .setDescription(lines.summary.join('\n'));
    if (lines.days === undefined || lines.top === undefined) {
      await interaction.editReply({ embeds: [embed], allowedMentions: { parse: [] } });
      return;
    }
    embed
      .addFields(
        { name: t('usage.days'), value: lines.days.join('\n'), inline: true },
        { name: t('usage.top'), value: lines.top.join('\n'), inline: true },
      )
      .setImage('attachment://usage.png');
    const chart = usageChart(translator, figures);
    await interaction.editReply({
      embeds: [embed],
      files: [
        {
          attachment: chart.png,
          name: 'usage.png',
          contentType: 'image/png',
          description: chart.description,
        },
      ],
      allowedMentions: { parse: [] },
    });
  },
} satisfies Command;
