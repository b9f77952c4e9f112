import { SlashCommandBuilder } from 'discord.js';
import { type Command, guildIdOf, requireListener } from '../src/discord/index.ts';

export default {
  data: new SlashCommandBuilder()
    .setName('leave')
    .setDescription('Leave the voice channel and clear the queue')
    .setContexts(0),

  async execute(interaction, { services }) {
    const channelId = requireListener(interaction, services.voice);
    const cleared = services.voice.queue(guildIdOf(interaction)).length;
    // Tearing down the connection and ffmpeg can outlast Discord's 3 s to answer.
    await interaction.deferReply();
    await services.voice.leave(guildIdOf(interaction));
    await interaction.editReply({
      content: `👋 Left <#${channelId}>${cleared > 0 ? ` and cleared ${cleared} queued item${cleared === 1 ? '' : 's'}` : ''}.`,
      allowedMentions: { parse: [] },
    });
  },
} satisfies Command;
