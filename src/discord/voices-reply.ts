/**
 * `/voices` as Discord shows it: the server's voices that pass a filter, and one page of them
 * as an embed with buttons to the neighbouring pages and a menu that plays a voice's sample.
 */
import {
  ActionRowBuilder,
  ButtonBuilder,
  ButtonStyle,
  EmbedBuilder,
  type Interaction,
  type InteractionUpdateOptions,
  StringSelectMenuBuilder,
} from 'discord.js';
import type { Translator } from '../i18n/index.ts';
import type { Services } from '../services.ts';
import { codeSpan, filterVoices, quoteSafely } from '../speech/index.ts';
import type { Voice } from '../tts/index.ts';
import { guildClient } from './guild.ts';
import { formatPageId, formatPreviewMenuId, pageOf, type VoicesFilter } from './voices-page.ts';

/** The voices of the server's key that pass the filter. */
export async function listVoices(
  interaction: Interaction,
  services: Services,
  filter: VoicesFilter,
): Promise<Voice[]> {
  const client = await guildClient(interaction, services);
  return filterVoices(await client.voices(filter.model), filter);
}

/** One page of the list, with buttons to the neighbouring pages. */
export function voicesPage(
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
