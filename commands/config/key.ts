/** `/config api-key` (a modal, so the key never shows in the channel) and `remove-api-key`. */
import {
  ActionRowBuilder,
  MessageFlags,
  ModalBuilder,
  TextInputBuilder,
  TextInputStyle,
} from 'discord.js';
import { described, guildIdOf, type SubcommandPart } from '../../src/discord/index.ts';
import { UserError } from '../../src/refusal/index.ts';
import { removeApiKey, saveApiKey } from '../../src/settings/index.ts';
import { isSendableKey, maskKey } from '../../src/tts/index.ts';

const KEY_FIELD = 'api-key';
const noMentions = { allowedMentions: { parse: [] } } as const;

export default {
  names: ['api-key', 'remove-api-key'],

  build: (builder) =>
    builder
      .addSubcommand((sub) => described(sub.setName('api-key'), 'commands.config.api-key'))
      .addSubcommand((sub) =>
        described(sub.setName('remove-api-key'), 'commands.config.remove-api-key'),
      ),

  async execute(interaction, { services, translator: { t } }) {
    if (interaction.options.getSubcommand() === 'remove-api-key') {
      const guildId = guildIdOf(interaction);
      await interaction.deferReply({ flags: MessageFlags.Ephemeral });
      const removed = await removeApiKey(services, guildId);
      await interaction.editReply({
        content: removed ? t('config.key_removed') : t('config.no_key_to_remove'),
        ...noMentions,
      });
      return;
    }
    const input = new TextInputBuilder()
      .setCustomId(KEY_FIELD)
      .setLabel(t('config.modal_label'))
      .setStyle(TextInputStyle.Short)
      .setRequired(true)
      .setMinLength(8)
      .setMaxLength(200);
    const modal = new ModalBuilder()
      .setCustomId('config:api-key')
      .setTitle(t('config.modal_title'))
      .addComponents(new ActionRowBuilder<TextInputBuilder>().addComponents(input));
    await interaction.showModal(modal);
  },

  async modal(interaction, { services, logger, translator: { t } }) {
    const guildId = guildIdOf(interaction);
    const apiKey = interaction.fields.getTextInputValue(KEY_FIELD).trim();
    if (!isSendableKey(apiKey)) throw new UserError('not_a_key', {});
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    const outcome = await saveApiKey(services, guildId, apiKey, logger);
    const key = `\`${maskKey(apiKey)}\``;
    await interaction.editReply({
      content:
        outcome === 'saved' ? t('config.key_saved', { key }) : t('config.key_rejected', { key }),
      ...noMentions,
    });
  },
} satisfies SubcommandPart;
