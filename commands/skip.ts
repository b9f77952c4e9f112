import { SlashCommandBuilder } from 'discord.js';
import { type Command, guildIdOf, requireListener, UserError } from '../src/discord/index.ts';
import { quoteSafely } from '../src/speech/index.ts';

export default {
  data: new SlashCommandBuilder()
    .setName('skip')
    .setDescription('Skip what is playing now (the rest of the queue stays)')
    .setContexts(0),

  async execute(interaction, { services }) {
    requireListener(interaction, services.voice);
    const guildId = guildIdOf(interaction);
    const up = services.voice.queue(guildId)[0];
    if (up === undefined || !services.voice.skip(guildId)) {
      throw new UserError('nothing_playing', 'Nothing is playing, so there is nothing to skip.');
    }
    await interaction.reply({
      content: `⏭️ Skipped **${quoteSafely(up.requesterName, 80)}**’s “${quoteSafely(up.text, 80)}”.`,
      allowedMentions: { parse: [] },
    });
  },
} satisfies Command;
