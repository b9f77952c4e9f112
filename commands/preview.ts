import { SlashCommandBuilder } from 'discord.js';
import {
  answerVoiceAutocomplete,
  type Command,
  described,
  guildIdOf,
  sendPreview,
} from '../src/discord/index.ts';
import { MODELS } from '../src/tts/index.ts';

export default {
  data: described(new SlashCommandBuilder().setName('preview'), 'commands.preview.description')
    .setContexts(0)
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
    const chosen =
      interaction.options.getString('model') ??
      (await context.services.settings.guild(guildIdOf(interaction))).defaults.model;
    await sendPreview(interaction, context, {
      voiceId: interaction.options.getString('voice', true),
      model: chosen === 'advance' ? 'advance' : 'base',
    });
  },

  autocomplete: (interaction, { services }) => answerVoiceAutocomplete(interaction, services),
} satisfies Command;
