import { MessageFlags } from 'discord.js';
import {
  addMemberOptions,
  answerLanguageAutocomplete,
  answerVoiceAutocomplete,
  type Command,
  describeMemberChange,
  describeMemberView,
  guildCommand,
  guildIdOf,
  memberChangeOf,
  serverVoice,
} from '../src/discord/index.ts';
import { UserError } from '../src/refusal/index.ts';
import { changeMember, checkLanguage, isEmptyChange, memberView } from '../src/settings/index.ts';
import { speakableLanguages } from '../src/speech/index.ts';
import { MODELS } from '../src/tts/index.ts';

export default {
  data: addMemberOptions(guildCommand('myvoice')),

  async execute(interaction, { services, translator, logger }) {
    const change = memberChangeOf(interaction);
    // Answer before the store and the API: both can outlast Discord's 3 s.
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    const guildId = guildIdOf(interaction);
    const reply = (content: string) =>
      interaction.editReply({ content, allowedMentions: { parse: [] } });
    if (isEmptyChange(change)) {
      const view = await memberView(services, guildId, interaction.user.id);
      const { voiceId } = view.user;
      // Only a label: without a key (or with the API away) the voice is shown by its id.
      const voice =
        voiceId === undefined
          ? undefined
          : await serverVoice(interaction, services, voiceId).catch((error: unknown) => {
              logger.debug({ err: error }, 'the member’s voice is shown by its id');
              return undefined;
            });
      await reply(describeMemberView(translator, view, voice, interaction.locale));
      return;
    }
    if (change.language !== undefined) {
      // Offered and checked as the codes this server's model speaks.
      const guild = await services.settings.guild(guildId);
      checkLanguage(change.language, guild.defaults.model ?? 'base', (model) =>
        speakableLanguages(services.config.ttsApi.version, model),
      );
    }
    const voice =
      change.voiceId === undefined
        ? undefined
        : await serverVoice(interaction, services, change.voiceId);
    if (change.voiceId !== undefined && voice === undefined)
      throw new UserError('no_such_voice', {});
    const stored = voice === undefined ? change : { ...change, voiceId: voice.voiceId };
    await changeMember(services, guildId, interaction.user.id, stored);
    await reply(describeMemberChange(translator, stored, voice, interaction.locale));
  },

  autocomplete: (interaction, context) =>
    interaction.options.getFocused(true).name === 'language'
      ? answerLanguageAutocomplete(interaction, context)
      : answerVoiceAutocomplete(interaction, context, MODELS),
} satisfies Command;
