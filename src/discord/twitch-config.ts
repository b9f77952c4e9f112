/**
 * `/config twitch add|remove|list`: the Twitch channels whose chat streamer mode reads aloud.
 * Builds the group's options, saves the list and has the Twitch source follow it at once.
 */
import {
  type ChatInputCommandInteraction,
  MessageFlags,
  type SlashCommandSubcommandsOnlyBuilder,
} from 'discord.js';
import type { Translator } from '../i18n/index.ts';
import { addTwitchChannel, removeTwitchChannel, twitchChannelName } from '../reader/config.ts';
import type { TwitchChannelStatus } from '../reader/index.ts';
import type { CommandContext } from './command.ts';
import { guildIdOf } from './guild.ts';
import { described } from './localize.ts';

/** Adds the `twitch` group to `/config`. */
export function withTwitchGroup(
  builder: SlashCommandSubcommandsOnlyBuilder,
): SlashCommandSubcommandsOnlyBuilder {
  return builder.addSubcommandGroup((group) =>
    described(group.setName('twitch'), 'commands.config.twitch')
      .addSubcommand((sub) =>
        described(sub.setName('add'), 'commands.config.twitch-add').addStringOption((o) =>
          described(o.setName('channel'), 'commands.config.twitch-add-channel')
            .setRequired(true)
            .setMaxLength(60),
        ),
      )
      .addSubcommand((sub) =>
        described(sub.setName('remove'), 'commands.config.twitch-remove').addStringOption((o) =>
          described(o.setName('channel'), 'commands.config.twitch-remove-channel')
            .setRequired(true)
            .setMaxLength(60),
        ),
      )
      .addSubcommand((sub) => described(sub.setName('list'), 'commands.config.twitch-list')),
  );
}

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

/** Runs `/config twitch …`: adds, removes or lists, and answers with each channel's state. */
export async function runTwitch(
  interaction: ChatInputCommandInteraction,
  { services, translator }: CommandContext,
): Promise<void> {
  const { t } = translator;
  const sub = interaction.options.getSubcommand();
  const guildId = guildIdOf(interaction);
  // Answer before the store: it can outlast Discord's 3 s.
  await interaction.deferReply({ flags: MessageFlags.Ephemeral });
  let head = '';
  if (sub !== 'list') {
    const login = twitchChannelName(interaction.options.getString('channel', true));
    await services.settings.updateGuild(guildId, (guild) => ({
      ...guild,
      reader:
        sub === 'add'
          ? addTwitchChannel(guild.reader, login)
          : removeTwitchChannel(guild.reader, login),
    }));
    head = t(sub === 'add' ? 'reader.twitch_added' : 'reader.twitch_removed', {
      channel: `\`${login}\``,
    });
  }
  await services.twitch.sync(guildId);
  const content = [head, statusLines(translator, services.twitch.status(guildId))]
    .filter((part) => part !== '')
    .join('\n');
  await interaction.editReply({ content: content.slice(0, 2000), allowedMentions: { parse: [] } });
}
