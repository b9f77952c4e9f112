import { SlashCommandBuilder } from 'discord.js';
import { type Command, guildIdOf } from '../src/discord/index.ts';
import { requireListener } from '../src/discord/voice-events.ts';

export default {
  data: new SlashCommandBuilder()
    .setName('leave')
    .setDescription('Leave the voice channel and clear the queue')
    .setContexts(0),

  async execute(interaction, { services }) {
    const channelId = requireListener(interaction, services.voice);
    const cleared = services.voice.queue(guildIdOf(interaction)).length;
    await services.voice.leave(guildIdOf(interaction));
    await interaction.reply({
      content: `👋 Left <#${channelId}>${cleared > 0 ? ` and cleared ${cleared} queued item${cleared === 1 ? '' : 's'}` : ''}.`,
      allowedMentions: { parse: [] },
    });
  },
} satisfies Command;
