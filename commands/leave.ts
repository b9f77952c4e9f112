import { type Command, guildCommand, guildIdOf, requireListener } from '../src/discord/index.ts';

export default {
  data: guildCommand('leave'),

  async execute(interaction, { services, translator: { t } }) {
    const channelId = requireListener(interaction, services.voice);
    const cleared = services.voice.queue(guildIdOf(interaction)).length;
    // Tearing down the connection and ffmpeg can outlast Discord's 3 s to answer.
    await interaction.deferReply();
    await services.voice.leave(guildIdOf(interaction));
    const channel = `<#${channelId}>`;
    await interaction.editReply({
      content:
        cleared > 0
          ? t('leave.left_cleared', { channel, count: cleared })
          : t('leave.left', { channel }),
      allowedMentions: { parse: [] },
    });
  },
} satisfies Command;
