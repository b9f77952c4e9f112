import {
  type Command,
  guildCommand,
  guildIdOf,
  memberVoiceChannel,
  requireBotPermissions,
  VOICE_PERMISSIONS,
} from '../src/discord/index.ts';
import { UserError } from '../src/refusal/index.ts';

const noMentions = { allowedMentions: { parse: [] } } as const;

export default {
  data: guildCommand('join'),

  async execute(interaction, { services, translator }) {
    const { t } = translator;
    const guildId = guildIdOf(interaction);
    const guild = interaction.guild;
    const channelId = memberVoiceChannel(interaction);
    if (guild === null || channelId === undefined) {
      throw new UserError('member_not_in_voice', {});
    }
    const channel = guild.channels.cache.get(channelId);
    // Joined but unheard is worse than a refusal: Connect and Speak are checked before joining.
    if (channel !== undefined) requireBotPermissions(channel, VOICE_PERMISSIONS, translator);
    if (channel?.isVoiceBased() === true && !channel.joinable) {
      throw new UserError('cannot_join', { channel: `<#${channelId}>` });
    }
    const alreadyThere = services.voice.channelOf(guildId) === channelId;
    await interaction.deferReply();
    try {
      await services.voice.join({
        guildId,
        channelId,
        adapterCreator: guild.voiceAdapterCreator,
        textChannelId: interaction.channelId,
      });
    } catch (error) {
      throw new UserError('voice_unavailable', { channel: `<#${channelId}>` }, { cause: error });
    }
    await interaction.editReply({
      content: t(alreadyThere ? 'join.already' : 'join.joined', { channel: `<#${channelId}>` }),
      ...noMentions,
    });
  },
} satisfies Command;
