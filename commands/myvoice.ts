import { MessageFlags } from 'discord.js';
import {
  answerLanguageAutocomplete,
  answerVoiceAutocomplete,
  type Command,
  described,
  guildClient,
  guildCommand,
  guildIdOf,
} from '../src/discord/index.ts';
import { UserError } from '../src/refusal/index.ts';
import { checkLanguage } from '../src/settings/index.ts';
import {
  findVoice,
  languageName,
  quoteSafely,
  speakableLanguages,
  voiceLabel,
} from '../src/speech/index.ts';
import { MODELS, type Voice } from '../src/tts/index.ts';

export default {
  data: guildCommand('myvoice')
    .addStringOption((o) =>
      described(o.setName('voice'), 'commands.myvoice.voice').setAutocomplete(true),
    )
    .addStringOption((o) =>
      described(o.setName('language'), 'commands.myvoice.language').setAutocomplete(true),
    ),

  async execute(interaction, { services, translator }) {
    const { t } = translator;
    const voiceId = interaction.options.getString('voice');
    const language = interaction.options.getString('language')?.trim().toLowerCase() || null;
    // Answer before the store and the API: both can outlast Discord's 3 s.
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    if (voiceId === null && language === null) {
      await services.settings.setUser(interaction.user.id, {});
      await interaction.editReply({ content: t('myvoice.cleared') });
      return;
    }
    const current = await services.settings.user(interaction.user.id);
    const lines: string[] = [];
    let voice: Voice | undefined;
    if (language !== null) {
      // Offered and checked as the codes this server's model speaks.
      const guild = await services.settings.guild(guildIdOf(interaction));
      checkLanguage(language, guild.defaults.model ?? 'base', (model) =>
        speakableLanguages(services.config.ttsApi.version, model),
      );
      lines.push(
        t('myvoice.language_set', { language: languageName(language, interaction.locale) }),
      );
    }
    if (voiceId !== null) {
      const client = await guildClient(interaction, services);
      for (const model of MODELS) voice ??= findVoice(await client.voices(model), voiceId);
      if (voice === undefined) throw new UserError('no_such_voice', {});
      lines.unshift(t('myvoice.set', { voice: quoteSafely(voiceLabel(voice, translator), 100) }));
    }
    await services.settings.setUser(interaction.user.id, {
      ...current,
      ...(voice === undefined ? {} : { voiceId: voice.voiceId }),
      ...(language === null ? {} : { language }),
    });
    await interaction.editReply({ content: lines.join('\n'), allowedMentions: { parse: [] } });
  },

  autocomplete: (interaction, context) =>
    interaction.options.getFocused(true).name === 'language'
      ? answerLanguageAutocomplete(interaction, context)
      : answerVoiceAutocomplete(interaction, context, MODELS),
} satisfies Command;
