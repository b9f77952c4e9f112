import { SlashCommandBuilder } from 'discord.js';
import { type Command, guildIdOf, requireListener, UserError } from '../src/discord/index.ts';

export default {
  data: new SlashCommandBuilder()
    .setName('stop')
    .setDescription('Stop playing and clear the whole queue (I stay in the channel)')
    .setContexts(0),

  async execute(interaction, { services }) {
    requireListener(interaction, services.voice);
    const guildId = guildIdOf(interaction);
    // Chat messages waiting to be read go too: the backlog, then the queue.
    const removed = services.reader.clear(guildId) + services.voice.stop(guildId);
    if (removed === 0) {
      throw new UserError('nothing_playing', 'Nothing is playing or queued.');
    }
    await interaction.reply({
      content: `⏹️ Stopped and cleared ${removed} item${removed === 1 ? '' : 's'}.`,
      allowedMentions: { parse: [] },
    });
  },
} satisfies Command;
