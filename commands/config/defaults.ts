/** `/config defaults`: the server's voice, model, speed and speech language, for members without their own. */
import { type ChatInputCommandInteraction, MessageFlags } from 'discord.js';
import {
  answerLanguageAutocomplete,
  answerVoiceAutocomplete,
  described,
  guildClient,
  guildIdOf,
  type SubcommandPart,
} from '../../src/discord/index.ts';
import { type DefaultsInput, describeDefaults, saveDefaults } from '../../src/settings/index.ts';
import { speakableLanguages } from '../../src/speech/index.ts';
import { MODELS, type Model } from '../../src/tts/index.ts';

export default {
  names: ['defaults'],

  // A speech language only on v3: v2 takes none (it would be refused).
  build: (builder, api) =>
    builder.addSubcommand((sub) => {
      described(sub.setName('defaults'), 'commands.config.defaults')
        .addStringOption((o) =>
          described(o.setName('voice'), 'commands.config.defaults-voice').setAutocomplete(true),
        )
        .addStringOption((o) =>
          described(o.setName('model'), 'commands.config.defaults-model').addChoices(
            ...MODELS.map((m) => ({ name: m, value: m })),
          ),
        )
        .addNumberOption((o) =>
          described(o.setName('speed'), 'commands.config.defaults-speed')
            .setMinValue(0.5)
            .setMaxValue(2),
        );
      if (api !== 'v2')
        sub.addStringOption((o) =>
          described(o.setName('language'), 'commands.config.defaults-language').setAutocomplete(
            true,
          ),
        );
      return sub;
    }),

  async execute(interaction, { services, translator }) {
    const guildId = guildIdOf(interaction);
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    const defaults = await saveDefaults(
      services,
      guildId,
      defaultsInput(interaction),
      () => guildClient(interaction, services),
      (model) => speakableLanguages(services.config.ttsApi.version, model),
    );
    await interaction.editReply({
      content: translator.t('config.defaults_saved', {
        defaults: describeDefaults(translator, defaults),
      }),
      allowedMentions: { parse: [] },
    });
  },

  autocomplete: (interaction, context) =>
    interaction.options.getFocused(true).name === 'language'
      ? answerLanguageAutocomplete(interaction, context)
      : answerVoiceAutocomplete(interaction, context),
} satisfies SubcommandPart;

/** The `/config defaults` options given. */
function defaultsInput(interaction: ChatInputCommandInteraction): DefaultsInput {
  const { options } = interaction;
  return {
    voiceId: options.getString('voice') ?? undefined,
    model: (options.getString('model') ?? undefined) as Model | undefined,
    speed: options.getNumber('speed') ?? undefined,
    language: options.getString('language')?.trim().toLowerCase() || undefined,
  };
}
