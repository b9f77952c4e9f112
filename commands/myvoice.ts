import { MessageFlags, SlashCommandBuilder } from 'discord.js';
import { type Command, described, guildClient, UserError } from '../src/discord/index.ts';
import { findVoice, quoteSafely, voiceChoices, voiceLabel } from '../src/speech/index.ts';
import { MODELS, type Voice } from '../src/tts/index.ts';

export default {
  data: described(new SlashCommandBuilder().setName('myvoice'), 'commands.myvoice.description')
    .setContexts(0)
    .addStringOption((o) =>
      described(o.setName('voice'), 'commands.myvoice.voice').setAutocomplete(true),
    ),

  async execute(interaction, { services, translator }) {
    const { t } = translator;
    const voiceId = interaction.options.getString('voice');
    if (voiceId === null) {
      await services.settings.setUser(interaction.user.id, {});
      await interaction.reply({ content: t('myvoice.cleared'), flags: MessageFlags.Ephemeral });
      return;
    }
    const client = await guildClient(interaction, services);
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    let voice: Voice | undefined;
    for (const model of MODELS) voice ??= findVoice(await client.voices(model), voiceId);
    if (voice === undefined) {
      throw new UserError('no_such_voice', {});
    }
    await services.settings.setUser(interaction.user.id, { voiceId: voice.voiceId });
    await interaction.editReply({
      content: t('myvoice.set', { voice: quoteSafely(voiceLabel(voice, translator), 100) }),
      allowedMentions: { parse: [] },
    });
  },

  async autocomplete(interaction, { services, translator }) {
    const client = await guildClient(interaction, services);
    const voices = (await Promise.all(MODELS.map((model) => client.voices(model)))).flat();
    const unique = [...new Map(voices.map((voice) => [voice.voiceId, voice])).values()];
    await interaction.respond(voiceChoices(unique, interaction.options.getFocused(), translator));
  },
} satisfies Command;
