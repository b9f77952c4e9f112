/**
 * `/config read-channel add|remove|list`: the channels streamer mode reads aloud. Builds the
 * group's options and runs it over the settings store.
 */
import {
  ChannelType,
  type ChatInputCommandInteraction,
  MessageFlags,
  PermissionFlagsBits,
  type SlashCommandSubcommandsOnlyBuilder,
} from 'discord.js';
import { addReadChannel, removeReadChannel } from '../reader/config.ts';
import { UserError } from '../refusal/index.ts';
import type { CommandContext } from './command.ts';
import { guildIdOf } from './guild.ts';
import { described } from './localize.ts';

const READABLE_CHANNELS = [
  ChannelType.GuildText,
  ChannelType.GuildVoice,
  ChannelType.GuildAnnouncement,
  ChannelType.GuildStageVoice,
] as const;

/** Adds the `read-channel` group to `/config`. */
export function withReadChannelGroup(
  builder: SlashCommandSubcommandsOnlyBuilder,
): SlashCommandSubcommandsOnlyBuilder {
  return builder.addSubcommandGroup((group) =>
    described(group.setName('read-channel'), 'commands.config.read-channel')
      .addSubcommand((sub) =>
        described(sub.setName('add'), 'commands.config.read-channel-add').addChannelOption((o) =>
          described(o.setName('channel'), 'commands.config.read-channel-add-channel')
            .setRequired(true)
            .addChannelTypes(...READABLE_CHANNELS),
        ),
      )
      .addSubcommand((sub) =>
        described(sub.setName('remove'), 'commands.config.read-channel-remove').addChannelOption(
          (o) =>
            described(
              o.setName('channel'),
              'commands.config.read-channel-remove-channel',
            ).setRequired(true),
        ),
      )
      .addSubcommand((sub) => described(sub.setName('list'), 'commands.config.read-channel-list')),
  );
}

/**
 * Refuses a read channel whose messages the bot would never get. The reader hears only the
 * gateway's message events, which Discord sends for the channels the bot can view; it never
 * fetches history, so View Channel is what it needs (Read Message History is not).
 */
async function requireReadable(
  interaction: ChatInputCommandInteraction,
  channelId: string,
): Promise<void> {
  const guild = interaction.guild;
  // Without the server in the cache the bot cannot tell; the setting is kept as asked.
  if (guild === null) return;
  const me = guild.members.me ?? (await guild.members.fetchMe());
  const channel = guild.channels.cache.get(channelId);
  if (channel?.permissionsFor(me).has(PermissionFlagsBits.ViewChannel) !== true)
    throw new UserError('reader_channel_unreadable', { channel: `<#${channelId}>` });
}

/** Runs `/config read-channel …`: adds, removes or lists, and answers with the list. */
export async function runReadChannel(
  interaction: ChatInputCommandInteraction,
  { services, translator: { t } }: CommandContext,
): Promise<void> {
  const sub = interaction.options.getSubcommand();
  const guildId = guildIdOf(interaction);
  // Answer before the store: it can outlast Discord's 3 s.
  await interaction.deferReply({ flags: MessageFlags.Ephemeral });
  const channel = sub === 'list' ? undefined : interaction.options.getChannel('channel', true);
  if (channel !== undefined && sub === 'add') await requireReadable(interaction, channel.id);
  const saved = await services.settings.updateGuild(guildId, (guild) => ({
    ...guild,
    reader:
      channel === undefined
        ? guild.reader
        : sub === 'add'
          ? addReadChannel(guild.reader, channel.id)
          : removeReadChannel(guild.reader, channel.id),
  }));
  const list = saved.reader.channels.map((id) => `<#${id}>`).join(', ') || t('reader.none');
  const channels = t('reader.channels', { channels: list });
  const content =
    channel === undefined
      ? channels
      : `${t(sub === 'add' ? 'reader.channel_added' : 'reader.channel_removed', { channel: `<#${channel.id}>` })} ${channels}`;
  await interaction.editReply({ content: content.slice(0, 2000), allowedMentions: { parse: [] } });
}
