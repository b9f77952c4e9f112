import {
  ActionRowBuilder,
  ButtonBuilder,
  ButtonStyle,
  EmbedBuilder,
  type Interaction,
  type InteractionUpdateOptions,
  SlashCommandBuilder,
  StringSelectMenuBuilder,
} from 'discord.js';
import {
  type Command,
  type CommandContext,
  described,
  formatPageId,
  formatPreviewMenuId,
  guildClient,
  pageOf,
  parsePageId,
  parsePreviewMenuId,
  sendPreview,
  type VoicesFilter,
} from '../src/discord/index.ts';
import type { Translator } from '../src/i18n/index.ts';
import { codeSpan, filterVoices, quoteSafely } from '../src/speech/index.ts';
import { MODELS, type Model, type Voice } from '../src/tts/index.ts';

export default {
  data: described(new SlashCommandBuilder().setName('voices'), 'commands.voices.description')
    .setContexts(0)
    .addStringOption((o) =>
      described(o.setName('model'), 'commands.voices.model').addChoices(
        ...MODELS.map((m) => ({ name: m, value: m })),
      ),
    )
    .addStringOption((o) =>
      described(o.setName('gender'), 'commands.voices.gender').setMaxLength(20),
    )
    .addStringOption((o) =>
      described(o.setName('accent'), 'commands.voices.accent').setMaxLength(20),
    ),

  async execute(interaction, { services, translator }) {
    const filter: VoicesFilter = {
      model: (interaction.options.getString('model') ?? 'base') as Model,
      gender: interaction.options.getString('gender') ?? '',
      accent: interaction.options.getString('accent') ?? '',
    };
    // Answer before the store and the API: both can outlast Discord's 3 s (a refusal still
    // reaches the member alone, see `reportFailure`).
    await interaction.deferReply();
    const voices = await listVoices(interaction, services, filter);
    await interaction.editReply(page(translator, voices, filter, 0));
  },

  async button(interaction, { services, translator }) {
    const state = parsePageId(interaction.customId);
    await interaction.deferUpdate();
    const voices = await listVoices(interaction, services, state);
    await interaction.editReply(page(translator, voices, state, state.page));
  },

  async select(interaction, context) {
    const [voiceId] = interaction.values;
    if (voiceId === undefined) return;
    await sendPreview(interaction, context, {
      voiceId,
      model: parsePreviewMenuId(interaction.customId),
    });
  },
} satisfies Command;

/** The voices of the server's key that pass the filter. */
async function listVoices(
  interaction: Interaction,
  services: CommandContext['services'],
  filter: VoicesFilter,
): Promise<Voice[]> {
  const client = await guildClient(interaction, services);
  return filterVoices(await client.voices(filter.model), filter);
}

/** One page of the list, with buttons to the neighbouring pages. */
function page(
  { t }: Translator,
  voices: readonly Voice[],
  filter: VoicesFilter,
  requested: number,
): InteractionUpdateOptions & { content: string } {
  const { index, pages, shown } = pageOf(voices, requested);
  const lines = shown.map((voice) => {
    const kind =
      voice.accent === 'Custom'
        ? t('voices.custom')
        : voice.free
          ? t('voices.free')
          : t('voices.premium');
    return `**${quoteSafely(voice.name, 60)}** ${codeSpan(voice.voiceId, 60)} · ${quoteSafely([voice.gender, voice.accent].filter(Boolean).join(' · '), 60)} · ${kind}`;
  });
  const filters = [filter.gender, filter.accent].filter(Boolean).map((f) => quoteSafely(f, 20));
  const embed = new EmbedBuilder()
    .setTitle(
      filters.length > 0
        ? t('voices.title_filtered', { model: filter.model, filters: filters.join(', ') })
        : t('voices.title', { model: filter.model }),
    )
    .setDescription(lines.length > 0 ? lines.join('\n') : t('voices.none'))
    .setFooter({
      text: t('voices.footer', { page: index + 1, pages, count: voices.length }),
    });
  const row = new ActionRowBuilder<ButtonBuilder>().addComponents(
    new ButtonBuilder()
      .setCustomId(formatPageId({ ...filter, page: index - 1 }))
      .setLabel(t('voices.previous'))
      .setStyle(ButtonStyle.Secondary)
      .setDisabled(index === 0),
    new ButtonBuilder()
      .setCustomId(formatPageId({ ...filter, page: index + 1 }))
      .setLabel(t('voices.next'))
      .setStyle(ButtonStyle.Secondary)
      .setDisabled(index >= pages - 1),
  );
  return {
    content: '',
    embeds: [embed],
    components: [
      ...(shown.length > 0 ? [previewMenu(t, filter, shown)] : []),
      ...(pages > 1 ? [row] : []),
    ],
    allowedMentions: { parse: [] },
  };
}

/** A menu of the voices on the page: picking one answers with its sample, as `/preview` does. */
function previewMenu(
  t: Translator['t'],
  filter: VoicesFilter,
  shown: readonly Voice[],
): ActionRowBuilder<StringSelectMenuBuilder> {
  const menu = new StringSelectMenuBuilder()
    .setCustomId(formatPreviewMenuId(filter.model))
    .setPlaceholder(t('voices.select'))
    .addOptions(
      shown.map((voice) => ({
        label: voice.name.slice(0, 100) || voice.voiceId.slice(0, 100),
        value: voice.voiceId.slice(0, 100),
        description:
          [voice.gender, voice.accent].filter(Boolean).join(' · ').slice(0, 100) ||
          voice.voiceId.slice(0, 100),
      })),
    );
  return new ActionRowBuilder<StringSelectMenuBuilder>().addComponents(menu);
}
