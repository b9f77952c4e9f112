/**
 * `/config twitch add|remove|list`: the Twitch channels whose chat streamer mode reads aloud.
 * A list group that saves the list and has the Twitch source follow it at once; `read` and
 * `reward` say what is read from them (issue 30).
 */
import { type ChatInputCommandInteraction, MessageFlags } from 'discord.js';
import type { Translator } from '../i18n/index.ts';
import {
  addTwitchChannel,
  applyReaderOptions,
  chatVoicesLine,
  removeTwitchChannel,
  twitchBadgesLine,
  twitchChannelName,
} from '../reader/config.ts';
import type { TwitchChannelStatus } from '../reader/index.ts';
import { applyTwitchRead, twitchRewardId, withReward } from '../reader/twitch-options.ts';
import { UserError } from '../refusal/index.ts';
import {
  CHAT_VOICE_MODES,
  defaultTwitchSettings,
  type GuildSettings,
  TWITCH_BOUNDS,
  TWITCH_READ_MODES,
  type TwitchSettings,
} from '../store/index.ts';
import type { CommandContext } from './command.ts';
import { guildIdOf } from './guild.ts';
import { type ListGroup, listSubcommands, runListGroup } from './list-group.ts';
import { described } from './localize.ts';
import type { SubcommandPart } from './subcommands.ts';

/** How long `/config twitch reward action:learn` waits for a redemption. */
export const LEARN_WITHIN_MS = 5 * 60_000;

/** What is read and who set what from chat: the lines after the channels. */
function settingsLines({ t }: Translator, twitch: TwitchSettings, chose: number): string[] {
  const reward =
    twitch.rewardId === undefined ? t('reader.twitch_no_reward') : `\`${twitch.rewardId}\``;
  const lines = [
    t('reader.twitch_settings', {
      mode: twitch.read,
      minBits: twitch.minBits,
      prefix: twitch.prefix,
      reward,
    }),
  ];
  if (chose > 0)
    lines.push(t('reader.twitch_voices', { count: chose, command: `${twitch.prefix}voice` }));
  if (twitch.muted.length > 0)
    lines.push(
      t('reader.twitch_muted', { logins: twitch.muted.map((l) => `\`${l}\``).join(', ') }),
    );
  if (twitch.paused)
    lines.push(t('reader.twitch_paused', { command: `${twitch.prefix}tts resume` }));
  return lines;
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
  listed: async (saved, { services, translator }, guildId) => {
    await services.twitch.sync(guildId);
    const status = statusLines(translator, services.twitch.status(guildId));
    const chose = await services.twitch.chosenVoices(guildId);
    return [status, ...settingsLines(translator, saved.twitch, chose)].join('\n');
  },
};

/** `/config twitch read`: the read mode, min-bits, the command prefix and badges; shows them all. */
async function runRead(
  interaction: ChatInputCommandInteraction,
  { services, translator }: CommandContext,
): Promise<void> {
  const guildId = guildIdOf(interaction);
  const typed = interaction.options.getString('mode');
  const input = {
    mode: TWITCH_READ_MODES.find((mode) => mode === typed),
    minBits: interaction.options.getInteger('min-bits') ?? undefined,
    prefix: interaction.options.getString('prefix') ?? undefined,
  };
  // Who is read from chat is a reader setting (it was `/config reader twitch-badges`), and which
  // voices chatters may pick with `!voice` one too.
  const twitchBadges = interaction.options.getString('badges') ?? undefined;
  const chatVoices = CHAT_VOICE_MODES.find(
    (m) => m === interaction.options.getString('chat-voices'),
  );
  // Checked before answering Discord: a refusal is the answer.
  applyTwitchRead(defaultTwitchSettings(), input);
  await interaction.deferReply({ flags: MessageFlags.Ephemeral });
  const saved = await services.settings.updateGuild(guildId, (stored) => ({
    ...stored,
    twitch: applyTwitchRead(stored.twitch, input),
    reader: applyReaderOptions(stored.reader, { twitchBadges, chatVoices }),
  }));
  const chose = await services.twitch.chosenVoices(guildId);
  const lines = [
    ...settingsLines(translator, saved.twitch, chose),
    twitchBadgesLine(translator, saved.reader),
    chatVoicesLine(saved.reader),
  ];
  await reply(interaction, lines.join('\n'));
}

/** `/config twitch reward`: learn it from the next redemption, set its id, or forget it. */
async function runReward(
  interaction: ChatInputCommandInteraction,
  { services, translator }: CommandContext,
): Promise<void> {
  const { t } = translator;
  const guildId = guildIdOf(interaction);
  const action = interaction.options.getString('action');
  const typed = interaction.options.getString('id');
  if ((action === null) === (typed === null)) throw new UserError('twitch_reward_action', {});
  const id = typed === null ? undefined : twitchRewardId(typed);
  await interaction.deferReply({ flags: MessageFlags.Ephemeral });
  const store = (rewardId: string | undefined): Promise<GuildSettings> =>
    services.settings.updateGuild(guildId, (stored) => ({
      ...stored,
      twitch: withReward(stored.twitch, rewardId),
    }));
  if (action !== 'learn') {
    await store(id);
    const said =
      id === undefined
        ? t('reader.twitch_reward_cleared')
        : t('reader.twitch_reward_set', { reward: id });
    await reply(interaction, said);
    return;
  }
  const { twitchChannels } = (await services.settings.guild(guildId)).reader;
  if (twitchChannels.length === 0) throw new UserError('twitch_learn_no_channel', {});
  const learning = services.twitch.learnReward(guildId, LEARN_WITHIN_MS);
  const channels = twitchChannels.map((c) => `\`${c}\``).join(', ');
  await reply(interaction, t('reader.twitch_reward_learning', { channels }));
  const learned = await learning;
  await reply(
    interaction,
    learned === undefined
      ? t('reader.twitch_reward_not_learned')
      : t('reader.twitch_reward_learned', {
          name: learned.displayName,
          channel: `\`${learned.channel}\``,
          reward: learned.rewardId,
        }),
  );
}

function reply(interaction: ChatInputCommandInteraction, content: string): Promise<unknown> {
  return interaction.editReply({ content: content.slice(0, 2000), allowedMentions: { parse: [] } });
}

/** The `/config twitch` part: the channel list group, with `read` and `reward` in it. */
export const twitchPart: SubcommandPart = {
  names: ['twitch'],
  build: (builder) =>
    builder.addSubcommandGroup((g) =>
      listSubcommands(twitchGroup, g)
        .addSubcommand((sub) =>
          described(sub.setName('read'), 'commands.config.twitch-read')
            .addStringOption((o) =>
              described(o.setName('mode'), 'commands.config.twitch-read-mode').addChoices(
                ...TWITCH_READ_MODES.map((value) => ({ name: value, value })),
              ),
            )
            .addIntegerOption((o) =>
              described(o.setName('min-bits'), 'commands.config.twitch-read-min-bits')
                .setMinValue(TWITCH_BOUNDS.minBits.min)
                .setMaxValue(TWITCH_BOUNDS.minBits.max),
            )
            .addStringOption((o) =>
              described(o.setName('prefix'), 'commands.config.twitch-read-prefix').setMaxLength(
                TWITCH_BOUNDS.prefix,
              ),
            )
            .addStringOption((o) =>
              described(o.setName('badges'), 'commands.config.reader-twitch-badges').setMaxLength(
                100,
              ),
            )
            .addStringOption((o) =>
              described(o.setName('chat-voices'), 'commands.config.reader-chat-voices').addChoices(
                ...CHAT_VOICE_MODES.map((value) => ({ name: value, value })),
              ),
            ),
        )
        .addSubcommand((sub) =>
          described(sub.setName('reward'), 'commands.config.twitch-reward')
            .addStringOption((o) =>
              described(o.setName('action'), 'commands.config.twitch-reward-action').addChoices(
                { name: 'learn', value: 'learn' },
                { name: 'clear', value: 'clear' },
              ),
            )
            .addStringOption((o) =>
              described(o.setName('id'), 'commands.config.twitch-reward-id').setMaxLength(64),
            ),
        ),
    ),
  execute: (interaction, context) => {
    const sub = interaction.options.getSubcommand();
    if (sub === 'read') return runRead(interaction, context);
    if (sub === 'reward') return runReward(interaction, context);
    return runListGroup(twitchGroup, interaction, context);
  },
};
