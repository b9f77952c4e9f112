import { MessageFlags } from 'discord.js';
import {
  answerVoiceAutocomplete,
  type Command,
  described,
  guildClient,
  guildCommand,
} from '../src/discord/index.ts';
import { UserError } from '../src/refusal/index.ts';
import { findVoice, quoteSafely, voiceLabel } from '../src/speech/index.ts';
import { MODELS, type Voice } from '../src/tts/index.ts';

export default {
  data: guildCommand('myvoice').addStringOption((o) =>
    described(o.setName('voice'), 'commands.myvoice.voice').setAutocomplete(true),
  ),

  async execute(interaction, { services, translator }) {
    const { t } = translator;
    const voiceId = interaction.options.getString('voice');
    // Answer before the store and the API: both can outlast Discord's 3 s.
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    if (voiceId === null) {
      await services.settings.setUser(interaction.user.id, {});
      await interaction.editReply({ content: t('myvoice.cleared') });
      return;
    }
    const client = await guildClient(interaction, services);
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

  autocomplete: (interaction, context) => answerVoiceAutocomplete(interaction, context, MODELS),
} satisfies Command;
