import {
  ActionRowBuilder,
  type ChatInputCommandInteraction,
  MessageFlags,
  ModalBuilder,
  PermissionFlagsBits,
  SlashCommandBuilder,
  TextInputBuilder,
  TextInputStyle,
} from 'discord.js';
import {
  answerVoiceAutocomplete,
  type Command,
  described,
  guildClient,
  guildIdOf,
  limitsSubcommand,
  requireManager,
  runLimits,
  UserError,
} from '../src/discord/index.ts';
import { runReaderConfig, withReaderSubcommands } from '../src/discord/reader-config.ts';
import { limitText, type Translator } from '../src/i18n/index.ts';
import {
  configSummary,
  type DefaultsInput,
  removeApiKey,
  saveApiKey,
  saveDefaults,
} from '../src/settings/index.ts';
import { codeSpan } from '../src/speech/index.ts';
import { isSendableKey, MODELS, type Model, maskKey } from '../src/tts/index.ts';

const KEY_FIELD = 'api-key';
const ephemeral = { flags: MessageFlags.Ephemeral } as const;
const noMentions = { allowedMentions: { parse: [] } } as const;

export default {
  data: withReaderSubcommands(
    described(new SlashCommandBuilder().setName('config'), 'commands.config.description')
      .setDefaultMemberPermissions(PermissionFlagsBits.ManageGuild)
      .setContexts(0)
      .addSubcommand((sub) => described(sub.setName('api-key'), 'commands.config.api-key'))
      .addSubcommand((sub) =>
        described(sub.setName('remove-api-key'), 'commands.config.remove-api-key'),
      )
      .addSubcommand((sub) =>
        described(sub.setName('defaults'), 'commands.config.defaults')
          .addStringOption((o) =>
            described(o.setName('voice'), 'commands.config.defaults-voice').setAutocomplete(true),
          )
          .addStringOption((o) =>
            described(o.setName('model'), 'commands.config.defaults-model').addChoices(
              ...MODELS.map((m) => ({ name: m, value: m })),
            ),
          )
          .addNumberOption((o) =>
            described(o.setName('speed'), 'commands.config.defaults-speed')
              .setMinValue(0.5)
              .setMaxValue(2),
          ),
      )
      .addSubcommand((sub) => described(sub.setName('show'), 'commands.config.show'))
      .addSubcommand(limitsSubcommand),
  ),

  async execute(interaction, context) {
    const { services, translator } = context;
    const { t } = translator;
    requireManager(interaction);
    if (await runReaderConfig(interaction, context)) return;
    const guildId = guildIdOf(interaction);
    switch (interaction.options.getSubcommand()) {
      case 'api-key': {
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
        return;
      }
      case 'remove-api-key': {
        await interaction.deferReply(ephemeral);
        const removed = await removeApiKey(services, guildId);
        await interaction.editReply({
          content: removed ? t('config.key_removed') : t('config.no_key_to_remove'),
          ...noMentions,
        });
        return;
      }
      case 'limits':
        await runLimits(interaction, services, translator);
        return;
      case 'defaults': {
        await interaction.deferReply(ephemeral);
        const defaults = await saveDefaults(services, guildId, defaultsInput(interaction), () =>
          guildClient(interaction, services),
        );
        await interaction.editReply({
          content: t('config.defaults_saved', { defaults: describeDefaults(translator, defaults) }),
          ...noMentions,
        });
        return;
      }
      default: {
        await interaction.deferReply(ephemeral);
        const summary = await configSummary(services, guildId);
        const lines = [
          summary.maskedKey === undefined
            ? t('config.show_no_key')
            : t('config.show_key', { key: `\`${summary.maskedKey}\`` }),
          t('config.show_defaults', { defaults: describeDefaults(translator, summary.defaults) }),
          ...summary.generations.map((usage) =>
            t('config.show_generations', {
              used: usage.used,
              limit: limitText(translator, usage.limit),
            }),
          ),
        ];
        await interaction.editReply({ content: lines.join('\n'), ...noMentions });
      }
    }
  },

  autocomplete: (interaction, context) => answerVoiceAutocomplete(interaction, context),

  async modal(interaction, { services, logger, translator: { t } }) {
    requireManager(interaction);
    const guildId = guildIdOf(interaction);
    const apiKey = interaction.fields.getTextInputValue(KEY_FIELD).trim();
    if (!isSendableKey(apiKey)) {
      throw new UserError('not_a_key', {});
    }
    await interaction.deferReply(ephemeral);
    const outcome = await saveApiKey(services, guildId, apiKey, logger);
    const key = `\`${maskKey(apiKey)}\``;
    await interaction.editReply({
      content:
        outcome === 'saved' ? t('config.key_saved', { key }) : t('config.key_rejected', { key }),
      ...noMentions,
    });
  },
} satisfies Command;

/** The `/config defaults` options given. */
function defaultsInput(interaction: ChatInputCommandInteraction): DefaultsInput {
  const { options } = interaction;
  return {
    voiceId: options.getString('voice') ?? undefined,
    model: (options.getString('model') ?? undefined) as Model | undefined,
    speed: options.getNumber('speed') ?? undefined,
  };
}

function describeDefaults(
  { t }: Translator,
  defaults: {
    voiceId?: string | undefined;
    model?: string | undefined;
    speed?: number | undefined;
  },
): string {
  return t('config.defaults', {
    voice: defaults.voiceId === undefined ? t('config.not_set') : codeSpan(defaults.voiceId, 60),
    model: defaults.model ?? 'base',
    speed: defaults.speed ?? 1,
  });
}
