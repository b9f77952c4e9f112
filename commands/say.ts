import {
  type ApiVersion,
  addSpeechOptions,
  answerVoiceAutocomplete,
  type Command,
  described,
  guildCommand,
  guildIdOf,
  memberVoiceChannel,
  mentionNames,
  originOf,
  requesterOf,
  requireAnswerPermissions,
  SayReply,
  speechChoicesOf,
} from '../src/discord/index.ts';
import { chooseOutput, MAX_TEXT_LENGTH, type Output } from '../src/speaking/index.ts';
import { speakableText } from '../src/speech/index.ts';

/** `/say` as offered on `api`: no `emotion` on v3, which has none. */
const dataFor = (api: ApiVersion) =>
  addSpeechOptions(
    guildCommand('say').addStringOption((o) =>
      described(o.setName('text'), 'commands.say.text')
        .setRequired(true)
        .setMaxLength(MAX_TEXT_LENGTH),
    ),
    api,
  ).addStringOption((o) =>
    described(o.setName('output'), 'commands.say.output').addChoices(
      { name: 'file', value: 'file' },
      { name: 'voice', value: 'voice' },
    ),
  );

export default {
  data: dataFor('v2'),
  dataFor,

  async execute(interaction, context) {
    const { speaking } = context.services;
    // Acknowledge before any store access: a store that is slow or away must not let the
    // interaction expire unanswered (failures below still reach the member, privately).
    await interaction.deferReply();
    const guildId = guildIdOf(interaction);
    const output = (interaction.options.getString('output') as Output | null) ?? undefined;
    const requesterChannelId = memberVoiceChannel(interaction);
    const botChannelId = context.services.voice.channelOf(guildId);
    const answer = chooseOutput(output, botChannelId, requesterChannelId);
    requireAnswerPermissions(interaction, answer, botChannelId, context.translator);
    const reply = new SayReply(interaction, context);
    try {
      await speaking.say(
        {
          guildId,
          requester: requesterOf(interaction),
          text: speakableText(
            interaction.options.getString('text', true),
            mentionNames(interaction),
          ),
          choices: speechChoicesOf(interaction),
          output,
          requesterChannelId,
          origin: originOf(interaction),
        },
        reply,
      );
    } catch (error) {
      // The failure message replaces the progress; no scheduled progress edit may overwrite it.
      await reply.cancel();
      throw error;
    }
  },

  autocomplete: (interaction, context) => answerVoiceAutocomplete(interaction, context),
} satisfies Command;
