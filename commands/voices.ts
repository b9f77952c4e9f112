import {
  ActionRowBuilder,
  ButtonBuilder,
  ButtonStyle,
  EmbedBuilder,
  type InteractionUpdateOptions,
  SlashCommandBuilder,
  StringSelectMenuBuilder,
} from 'discord.js';
import { type Command, described, guildClient, sendPreview } from '../src/discord/index.ts';
import type { Translator } from '../src/i18n/index.ts';
import { codeSpan, filterVoices, quoteSafely } from '../src/speech/index.ts';
import { MODELS, type Model, type Voice } from '../src/tts/index.ts';

const PAGE_SIZE = 10;

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
    const client = await guildClient(interaction, services);
    await interaction.deferReply();
    const filter: Filter = {
      model: (interaction.options.getString('model') ?? 'base') as Model,
      gender: interaction.options.getString('gender') ?? '',
      accent: interaction.options.getString('accent') ?? '',
    };
    const voices = filterVoices(await client.voices(filter.model), filter);
    await interaction.editReply(page(translator, voices, filter, 0));
  },

  async button(interaction, { services, translator }) {
    const filter = parseCustomId(interaction.customId);
    const client = await guildClient(interaction, services);
    // A cold cache waits for the voices budget, which can outlast Discord's 3 s to answer.
    await interaction.deferUpdate();
    const voices = filterVoices(await client.voices(filter.model), filter);
    await interaction.editReply(page(translator, voices, filter, filter.page));
  },

  async select(interaction, context) {
    const [, , model] = interaction.customId.split(':');
    const [voiceId] = interaction.values;
    if (voiceId === undefined) return;
    await sendPreview(interaction, context, {
      voiceId,
      model: model === 'advance' ? 'advance' : 'base',
    });
  },
} satisfies Command;

interface Filter {
  readonly model: Model;
  readonly gender: string;
  readonly accent: string;
}

/** `voices:<model>:<page>:<gender>:<accent>`, the state a page button carries. */
function customId(filter: Filter, pageIndex: number): string {
  return ['voices', filter.model, pageIndex, filter.gender, filter.accent].join(':').slice(0, 100);
}

function parseCustomId(id: string): Filter & { page: number } {
  const [, model, pageText, gender = '', accent = ''] = id.split(':');
  return {
    model: model === 'advance' ? 'advance' : 'base',
    page: Math.max(0, Number(pageText) || 0),
    gender,
    accent,
  };
}

/** One page of the list, with buttons to the neighbouring pages. */
function page(
  { t }: Translator,
  voices: readonly Voice[],
  filter: Filter,
  requested: number,
): InteractionUpdateOptions & { content: string } {
  const pages = Math.max(1, Math.ceil(voices.length / PAGE_SIZE));
  const index = Math.min(requested, pages - 1);
  const shown = voices.slice(index * PAGE_SIZE, (index + 1) * PAGE_SIZE);
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
      .setCustomId(customId(filter, index - 1))
      .setLabel(t('voices.previous'))
      .setStyle(ButtonStyle.Secondary)
      .setDisabled(index === 0),
    new ButtonBuilder()
      .setCustomId(customId(filter, index + 1))
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
  filter: Filter,
  shown: readonly Voice[],
): ActionRowBuilder<StringSelectMenuBuilder> {
  const menu = new StringSelectMenuBuilder()
    .setCustomId(`voices:preview:${filter.model}`)
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
