/** `/config forget`: deletes everything stored for the server, after a confirm button. */
import { MessageFlags } from 'discord.js';
import {
  described,
  describeForgetReport,
  FORGET_CONFIRM_ID,
  forgetQuestion,
  guildIdOf,
  type SubcommandPart,
} from '../../src/discord/index.ts';

const noMentions = { allowedMentions: { parse: [] } } as const;

export default {
  names: ['forget'],

  build: (builder) =>
    builder.addSubcommand((sub) => described(sub.setName('forget'), 'commands.config.forget')),

  async execute(interaction, { translator }) {
    await interaction.reply({
      ...forgetQuestion(translator),
      flags: MessageFlags.Ephemeral,
      ...noMentions,
    });
  },

  async button(interaction, { services, translator }) {
    const guildId = guildIdOf(interaction);
    if (interaction.customId !== FORGET_CONFIRM_ID) {
      await interaction.update({
        content: translator.t('config.forget_cancelled'),
        components: [],
        ...noMentions,
      });
      return;
    }
    // The question stays until the store has answered (it may take a few seconds).
    await interaction.deferUpdate();
    const report = await services.forget.forgetGuild(guildId);
    await interaction.editReply({
      content: describeForgetReport(translator, report),
      components: [],
      ...noMentions,
    });
  },
} satisfies SubcommandPart;
