import {
  ActionRowBuilder,
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
  type CommandContext,
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
import { codeSpan, findVoice } from '../src/speech/index.ts';
import { guildDefaultsSchema, UnreadableKeyError } from '../src/store/index.ts';
import { isSendableKey, MODELS, type Model, maskKey, TtsError } from '../src/tts/index.ts';

const KEY_FIELD = 'api-key';
const ephemeral = { flags: MessageFlags.Ephemeral, allowedMentions: { parse: [] } } as const;

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
        const previous = await readableKey(services, guildId);
        const removed = await services.apiKeys.remove(guildId);
        if (previous !== undefined) services.tts.forget(previous);
        // Queued speech must not go on with the removed key.
        if (removed) services.voice.keyChanged(guildId, 'removed');
        await interaction.reply({
          ...ephemeral,
          content: removed ? t('config.key_removed') : t('config.no_key_to_remove'),
        });
        return;
      }
      case 'limits':
        await runLimits(interaction, services, translator);
        return;
      case 'defaults': {
        await interaction.deferReply({ flags: MessageFlags.Ephemeral });
        const settings = await services.settings.guild(guildId);
        const voice = interaction.options.getString('voice');
        const model = (interaction.options.getString('model') ??
          settings.defaults.model ??
          'base') as Model;
        if (voice !== null) {
          const client = await guildClient(interaction, services);
          const found = findVoice(await client.voices(model), voice);
          if (found === undefined)
            throw new UserError('voice_not_found', { voice: codeSpan(voice, 50), model });
        }
        const defaults = guildDefaultsSchema.parse({
          ...settings.defaults,
          ...(voice === null ? {} : { voiceId: voice }),
          ...(interaction.options.getString('model') === null ? {} : { model }),
          ...(interaction.options.getNumber('speed') === null
            ? {}
            : { speed: interaction.options.getNumber('speed') }),
        });
        await services.settings.setGuild(guildId, { ...settings, defaults });
        await interaction.editReply({
          content: t('config.defaults_saved', { defaults: describeDefaults(translator, defaults) }),
          allowedMentions: { parse: [] },
        });
        return;
      }
      default: {
        await interaction.deferReply({ flags: MessageFlags.Ephemeral });
        const settings = await services.settings.guild(guildId);
        const apiKey = await services.apiKeys.get(guildId);
        const lines = [
          apiKey === undefined
            ? t('config.show_no_key')
            : t('config.show_key', { key: `\`${maskKey(apiKey)}\`` }),
          t('config.show_defaults', { defaults: describeDefaults(translator, settings.defaults) }),
        ];
        if (apiKey !== undefined) {
          for (const usage of await services.tts.forKey(apiKey).usage('generate')) {
            lines.push(
              t('config.show_generations', {
                used: usage.used,
                limit: limitText(translator, usage.limit),
              }),
            );
          }
        }
        await interaction.editReply({ content: lines.join('\n'), allowedMentions: { parse: [] } });
      }
    }
  },

  autocomplete: (interaction, { services }) => answerVoiceAutocomplete(interaction, services),

  async modal(interaction, { services, logger, translator: { t } }) {
    requireManager(interaction);
    const guildId = guildIdOf(interaction);
    const apiKey = interaction.fields.getTextInputValue(KEY_FIELD).trim();
    if (!isSendableKey(apiKey)) {
      throw new UserError('not_a_key', {});
    }
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    try {
      // A key that fails the check, for any reason, leaves nothing behind.
      await services.tts.verify(apiKey, 'base');
    } catch (error) {
      if (error instanceof TtsError && error.kind === 'invalid_key') {
        await interaction.editReply({
          content: t('config.key_rejected', { key: `\`${maskKey(apiKey)}\`` }),
          allowedMentions: { parse: [] },
        });
        return;
      }
      throw error;
    }
    const previous = await readableKey(services, guildId);
    await services.apiKeys.set(guildId, apiKey);
    if (previous !== apiKey) {
      if (previous !== undefined) services.tts.forget(previous);
      // Queued speech goes on with the new key, never the old one.
      services.voice.keyChanged(guildId, 'replaced');
    }
    logger.info({ keyId: services.tts.forKey(apiKey).keyId }, 'API key configured');
    await interaction.editReply({
      content: t('config.key_saved', { key: `\`${maskKey(apiKey)}\`` }),
      allowedMentions: { parse: [] },
    });
  },
} satisfies Command;

/** The guild's stored key, or undefined when there is none or it can no longer be decrypted. */
async function readableKey(
  services: CommandContext['services'],
  guildId: string,
): Promise<string | undefined> {
  try {
    return await services.apiKeys.get(guildId);
  } catch (error) {
    if (error instanceof UnreadableKeyError) return undefined;
    throw error;
  }
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
