/**
 * `/config twitch add|remove|list`: the Twitch channels whose chat streamer mode reads aloud.
 * A list group that saves the list and has the Twitch source follow it at once.
 */
import type { Translator } from '../i18n/index.ts';
import { addTwitchChannel, removeTwitchChannel, twitchChannelName } from '../reader/config.ts';
import type { TwitchChannelStatus } from '../reader/index.ts';
import type { ListGroup } from './list-group.ts';
import { described } from './localize.ts';

/** One line per channel: connected or not, read and dropped today. */
function statusLines({ t }: Translator, channels: readonly TwitchChannelStatus[]): string {
  if (channels.length === 0) return t('reader.twitch_none');
  const lines = channels.map((c) =>
    t('reader.twitch_status', {
      channel: `\`${c.channel}\``,
      state: t(c.connected ? 'reader.twitch_connected' : 'reader.twitch_connecting'),
      read: c.readToday,
      dropped: c.droppedToday,
    }),
  );
  return [t('reader.twitch_list'), ...lines].join('\n');
}

/** The `twitch` group: a channel's login, stored in `reader.twitchChannels`. */
export const twitchGroup: ListGroup<string> = {
  name: 'twitch',
  addOptions: (sub) =>
    sub.addStringOption((o) =>
      described(o.setName('channel'), 'commands.config.twitch-add-channel')
        .setRequired(true)
        .setMaxLength(60),
    ),
  removeOptions: (sub) =>
    sub.addStringOption((o) =>
      described(o.setName('channel'), 'commands.config.twitch-remove-channel')
        .setRequired(true)
        .setMaxLength(60),
    ),
  // A name, `#name` or a twitch.tv address, refused when it cannot be a login.
  item: (interaction) => twitchChannelName(interaction.options.getString('channel', true)),
  add: (settings, login) => ({ ...settings, reader: addTwitchChannel(settings.reader, login) }),
  remove: (settings, login) => ({
    settings: { ...settings, reader: removeTwitchChannel(settings.reader, login) },
    removed: settings.reader.twitchChannels.includes(login),
  }),
  listWrites: false,
  said: (change, { t }) => {
    const channel = `\`${change.item}\``;
    if (change.sub === 'add') return t('reader.twitch_added', { channel });
    return t(change.removed ? 'reader.twitch_removed' : 'reader.twitch_not_listed', { channel });
  },
  // Each channel's state, from the source once it follows the saved list.
  listed: async (_saved, { services, translator }, guildId) => {
    await services.twitch.sync(guildId);
    return statusLines(translator, services.twitch.status(guildId));
  },
};
