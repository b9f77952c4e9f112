import { MessageFlags, SlashCommandBuilder } from 'discord.js';
import { type Command, guildClient, UserError } from '../src/discord/index.ts';
import { findVoice, quoteSafely, voiceChoices, voiceLabel } from '../src/speech/index.ts';
import { MODELS, type Voice } from '../src/tts/index.ts';

export default {
  data: new SlashCommandBuilder()
    .setName('myvoice')
    .setDescription('Choose your own default voice for /say (leave empty to clear it)')
    .setContexts(0)
    .addStringOption((o) => o.setName('voice').setDescription('Your voice').setAutocomplete(true)),

  async execute(interaction, { services }) {
    const voiceId = interaction.options.getString('voice');
    if (voiceId === null) {
      await services.settings.setUser(interaction.user.id, {});
      await interaction.reply({
        content: 'Your default voice is cleared; `/say` uses the server’s default.',
        flags: MessageFlags.Ephemeral,
      });
      return;
    }
    const client = await guildClient(interaction, services);
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    let voice: Voice | undefined;
    for (const model of MODELS) voice ??= findVoice(await client.voices(model), voiceId);
    if (voice === undefined) {
      throw new UserError(
        'voice_not_found',
        'There is no such voice. Pick one from the autocomplete list or see `/voices`.',
      );
    }
    await services.settings.setUser(interaction.user.id, { voiceId: voice.voiceId });
    await interaction.editReply({
      content: `Your default voice is now **${quoteSafely(voiceLabel(voice), 100)}**.`,
      allowedMentions: { parse: [] },
    });
  },

  async autocomplete(interaction, { services }) {
    const client = await guildClient(interaction, services);
    const voices = (await Promise.all(MODELS.map((model) => client.voices(model)))).flat();
    const unique = [...new Map(voices.map((voice) => [voice.voiceId, voice])).values()];
    await interaction.respond(voiceChoices(unique, interaction.options.getFocused()));
  },
} satisfies Command;
