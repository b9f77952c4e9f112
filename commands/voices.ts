import {
  answerVoiceTraitAutocomplete,
  type Command,
  described,
  guildCommand,
  listVoices,
  parsePageId,
  parsePreviewMenuId,
  sendPreview,
  type VoicesFilter,
  voicesPage,
} from '../src/discord/index.ts';
import { MODELS, type Model } from '../src/tts/index.ts';

export default {
  data: guildCommand('voices')
    .addStringOption((o) =>
      described(o.setName('model'), 'commands.voices.model').addChoices(
        ...MODELS.map((m) => ({ name: m, value: m })),
      ),
    )
    // Autocompleted from the key's own voices: the values there are, not a guess.
    .addStringOption((o) =>
      described(o.setName('gender'), 'commands.voices.gender')
        .setMaxLength(20)
        .setAutocomplete(true),
    )
    .addStringOption((o) =>
      described(o.setName('accent'), 'commands.voices.accent')
        .setMaxLength(20)
        .setAutocomplete(true),
    ),

  async execute(interaction, { services, translator }) {
    const filter: VoicesFilter = {
      model: (interaction.options.getString('model') ?? 'base') as Model,
      gender: interaction.options.getString('gender') ?? '',
      accent: interaction.options.getString('accent') ?? '',
    };
    // Answer before the store and the API: both can outlast Discord's 3 s (a refusal still
    // reaches the member alone, see `reportFailure`).
    await interaction.deferReply();
    const voices = await listVoices(interaction, services, filter);
    await interaction.editReply(voicesPage(translator, voices, filter, 0));
  },

  autocomplete: (interaction, context) => answerVoiceTraitAutocomplete(interaction, context),

  async button(interaction, { services, translator }) {
    const state = parsePageId(interaction.customId);
    await interaction.deferUpdate();
    const voices = await listVoices(interaction, services, state);
    await interaction.editReply(voicesPage(translator, voices, state, state.page));
  },

  async select(interaction, context) {
    const [voiceId] = interaction.values;
    if (voiceId === undefined) return;
    await sendPreview(interaction, context, {
      voiceId,
      model: parsePreviewMenuId(interaction.customId),
    });
  },
} satisfies Command;
