/**
 * `/config read-channel add|remove|list`: the channels streamer mode reads aloud. A list group
 * over the settings store.
 */
import { ChannelType, type ChatInputCommandInteraction, PermissionFlagsBits } from 'discord.js';
import { addReadChannel, removeReadChannel } from '../reader/config.ts';
import { UserError } from '../refusal/index.ts';
import type { ListGroup } from './list-group.ts';
import { described } from './localize.ts';

const READABLE_CHANNELS = [
  ChannelType.GuildText,
  ChannelType.GuildVoice,
  ChannelType.GuildAnnouncement,
  ChannelType.GuildStageVoice,
] as const;

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

/** The `read-channel` group: a channel's id, stored in `reader.channels`. */
export const readChannelGroup: ListGroup<string> = {
  name: 'read-channel',
  addOptions: (sub) =>
    sub.addChannelOption((o) =>
      described(o.setName('channel'), 'commands.config.read-channel-add-channel')
        .setRequired(true)
        .addChannelTypes(...READABLE_CHANNELS),
    ),
  removeOptions: (sub) =>
    sub.addChannelOption((o) =>
      described(o.setName('channel'), 'commands.config.read-channel-remove-channel').setRequired(
        true,
      ),
    ),
  item: async (interaction, sub) => {
    const { id } = interaction.options.getChannel('channel', true);
    if (sub === 'add') await requireReadable(interaction, id);
    return id;
  },
  add: (settings, id) => ({ ...settings, reader: addReadChannel(settings.reader, id) }),
  remove: (settings, id) => ({
    settings: { ...settings, reader: removeReadChannel(settings.reader, id) },
  }),
  listWrites: true,
  said: ({ sub, item }, { t }) =>
    t(sub === 'add' ? 'reader.channel_added' : 'reader.channel_removed', { channel: `<#${item}>` }),
  listed: (saved, { translator: { t } }) =>
    t('reader.channels', {
      channels: saved.reader.channels.map((id) => `<#${id}>`).join(', ') || t('reader.none'),
    }),
  // "I no longer read #mods. Channels read aloud: #chat." is one short paragraph.
  separator: ' ',
};
