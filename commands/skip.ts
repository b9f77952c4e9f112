import { type Command, guildCommand, guildIdOf, requireListener } from '../src/discord/index.ts';
import { UserError } from '../src/refusal/index.ts';
import { quoteSafely } from '../src/speech/index.ts';

export default {
  data: guildCommand('skip'),

  async execute(interaction, { services, translator: { t } }) {
    requireListener(interaction, services.voice);
    const guildId = guildIdOf(interaction);
    const up = services.voice.queue(guildId)[0];
    if (up === undefined || !services.voice.skip(guildId)) {
      throw new UserError('nothing_to_skip', {});
    }
    await interaction.reply({
      content: t('skip.skipped', {
        name: quoteSafely(up.requesterName, 80),
        text: quoteSafely(up.text, 80),
      }),
      allowedMentions: { parse: [] },
    });
  },
} satisfies Command;
