import { type Command, guildCommand, guildIdOf, requireListener } from '../src/discord/index.ts';
import { UserError } from '../src/refusal/index.ts';

export default {
  data: guildCommand('stop'),

  async execute(interaction, { services, translator: { t } }) {
    requireListener(interaction, services.voice);
    const guildId = guildIdOf(interaction);
    // Chat messages waiting to be read go too: the backlog, then the queue.
    const removed = services.reader.clear(guildId) + services.voice.stop(guildId);
    if (removed === 0) {
      throw new UserError('nothing_playing', {});
    }
    await interaction.reply({
      content: t('stop.stopped', { count: removed }),
      allowedMentions: { parse: [] },
    });
  },
} satisfies Command;
