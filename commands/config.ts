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
  guildClient,
  guildIdOf,
  limitsSubcommand,
  requireManager,
  runLimits,
  UserError,
} from '../src/discord/index.ts';
import { runReaderConfig, withReaderSubcommands } from '../src/discord/reader-config.ts';
import { codeSpan, findVoice } from '../src/speech/index.ts';
import { guildDefaultsSchema, UnreadableKeyError } from '../src/store/index.ts';
import {
  formatWindow,
  isSendableKey,
  MODELS,
  type Model,
  maskKey,
  TtsError,
} from '../src/tts/index.ts';

const KEY_FIELD = 'api-key';
const ephemeral = { flags: MessageFlags.Ephemeral, allowedMentions: { parse: [] } } as const;

export default {
  data: withReaderSubcommands(
    new SlashCommandBuilder()
      .setName('config')
      .setDescription('Configure the TTS bot for this server (Manage Server)')
      .setDefaultMemberPermissions(PermissionFlagsBits.ManageGuild)
      .setContexts(0)
      .addSubcommand((sub) =>
        sub.setName('api-key').setDescription('Set this server’s TTS API key'),
      )
      .addSubcommand((sub) =>
        sub.setName('remove-api-key').setDescription('Forget this server’s TTS API key'),
      )
      .addSubcommand((sub) =>
        sub
          .setName('defaults')
          .setDescription('Default voice, model and speed for /say')
          .addStringOption((o) =>
            o.setName('voice').setDescription('Default voice').setAutocomplete(true),
          )
          .addStringOption((o) =>
            o
              .setName('model')
              .setDescription('Default model')
              .addChoices(...MODELS.map((m) => ({ name: m, value: m }))),
          )
          .addNumberOption((o) =>
            o
              .setName('speed')
              .setDescription('Default speed, 0.5 to 2')
              .setMinValue(0.5)
              .setMaxValue(2),
          ),
      )
      .addSubcommand((sub) =>
        sub.setName('show').setDescription('Show the key (masked), defaults and today’s usage'),
      )
      .addSubcommand(limitsSubcommand),
  ),

  async execute(interaction, context) {
    const { services } = context;
    requireManager(interaction);
    if (await runReaderConfig(interaction, context)) return;
    const guildId = guildIdOf(interaction);
    switch (interaction.options.getSubcommand()) {
      case 'api-key': {
        const input = new TextInputBuilder()
          .setCustomId(KEY_FIELD)
          .setLabel('API key')
          .setStyle(TextInputStyle.Short)
          .setRequired(true)
          .setMinLength(8)
          .setMaxLength(200);
        const modal = new ModalBuilder()
          .setCustomId('config:api-key')
          .setTitle('TTS API key')
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
          content: removed
            ? 'The API key was removed. `/say` stays off until a new key is set.'
            : 'This server had no API key.',
        });
        return;
      }
      case 'limits':
        await runLimits(interaction, services);
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
            throw new UserError(
              'voice_not_found',
              `There is no voice ${codeSpan(voice, 50)} for the ${model} model. Pick one from the list.`,
            );
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
          content: `Defaults saved: ${describeDefaults(defaults)}.`,
          allowedMentions: { parse: [] },
        });
        return;
      }
      default: {
        await interaction.deferReply({ flags: MessageFlags.Ephemeral });
        const settings = await services.settings.guild(guildId);
        const apiKey = await services.apiKeys.get(guildId);
        const lines = [
          `**API key:** ${apiKey === undefined ? 'not set — use `/config api-key`' : `\`${maskKey(apiKey)}\``}`,
          `**Defaults:** ${describeDefaults(settings.defaults)}`,
        ];
        if (apiKey !== undefined) {
          for (const usage of await services.tts.forKey(apiKey).usage('generate')) {
            lines.push(
              `**Generations:** ${usage.used} of ${usage.limit.count} per ${formatWindow(usage.limit.windowMs)}`,
            );
          }
        }
        await interaction.editReply({ content: lines.join('\n'), allowedMentions: { parse: [] } });
      }
    }
  },

  autocomplete: (interaction, { services }) => answerVoiceAutocomplete(interaction, services),

  async modal(interaction, { services, logger }) {
    requireManager(interaction);
    const guildId = guildIdOf(interaction);
    const apiKey = interaction.fields.getTextInputValue(KEY_FIELD).trim();
    if (!isSendableKey(apiKey)) {
      throw new UserError(
        'invalid_input',
        'That is not an API key: it contains spaces or characters keys do not have. Nothing was saved; paste the key again.',
      );
    }
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    try {
      // A key that fails the check, for any reason, leaves nothing behind.
      await services.tts.verify(apiKey, 'base');
    } catch (error) {
      if (error instanceof TtsError && error.kind === 'invalid_key') {
        await interaction.editReply({
          content: `The TTS service rejected \`${maskKey(apiKey)}\`: the key is not valid. Nothing was saved; check the key and try again.`,
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
      content: `API key \`${maskKey(apiKey)}\` checked and saved. Members can use \`/say\` now.`,
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

function describeDefaults(defaults: {
  voiceId?: string | undefined;
  model?: string | undefined;
  speed?: number | undefined;
}): string {
  return [
    `voice ${defaults.voiceId === undefined ? 'not set' : codeSpan(defaults.voiceId, 60)}`,
    `model ${defaults.model ?? 'base'}`,
    `speed ${defaults.speed ?? 1}`,
  ].join(', ');
}
