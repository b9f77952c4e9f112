import { SlashCommandBuilder } from 'discord.js';
import { type Command, guildIdOf, memberVoiceChannel, UserError } from '../src/discord/index.ts';

const noMentions = { allowedMentions: { parse: [] } } as const;

export default {
  data: new SlashCommandBuilder()
    .setName('join')
    .setDescription('Join your voice channel and speak /say requests there')
    .setContexts(0),

  async execute(interaction, { services }) {
    const guildId = guildIdOf(interaction);
    const guild = interaction.guild;
    const channelId = memberVoiceChannel(interaction);
    if (guild === null || channelId === undefined) {
      throw new UserError('not_in_voice', 'Join a voice channel first, then use `/join` again.');
    }
    const channel = guild.channels.cache.get(channelId);
    if (channel?.isVoiceBased() === true && !channel.joinable) {
      throw new UserError(
        'missing_permission',
        `I cannot join <#${channelId}>: I need the **Connect** permission there, or the channel is full.`,
      );
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
      throw new UserError(
        'voice_unavailable',
        `I could not connect to <#${channelId}>. Discord’s voice servers may be busy: try \`/join\` again in a minute.`,
        { cause: error },
      );
    }
    await interaction.editReply({
      content: alreadyThere
        ? `I am already in <#${channelId}>. Use \`/say\` to speak.`
        : `🔊 Joined <#${channelId}>. Use \`/say\` and I will speak here; \`/leave\` when done.`,
      ...noMentions,
    });
  },
} satisfies Command;
