import {
  answerVoiceAutocomplete,
  type Command,
  described,
  guildCommand,
  sendPreview,
} from '../src/discord/index.ts';
import { MODELS } from '../src/tts/index.ts';

export default {
  data: guildCommand('preview')
    .addStringOption((o) =>
      described(o.setName('voice'), 'commands.preview.voice')
        .setRequired(true)
        .setAutocomplete(true),
    )
    .addStringOption((o) =>
      described(o.setName('model'), 'commands.preview.model').addChoices(
        ...MODELS.map((m) => ({ name: m, value: m })),
      ),
    ),

  async execute(interaction, context) {
    const model = interaction.options.getString('model');
    await sendPreview(interaction, context, {
      voiceId: interaction.options.getString('voice', true),
      model: model === null ? undefined : model === 'advance' ? 'advance' : 'base',
    });
  },

  autocomplete: (interaction, context) => answerVoiceAutocomplete(interaction, context),
} satisfies Command;
