/**
 * `/config show`: every server setting in one place, grouped as the commands are (key and
 * budget, defaults, limits, what is read and how, Twitch, dictionary, blocked words), each
 * section headed by the command that changes it; pages with buttons when it is long.
 */
import { type ButtonInteraction, type ChatInputCommandInteraction, MessageFlags } from 'discord.js';
import { limitText } from '../i18n/index.ts';
import { readerSections, twitchBadgesLine } from '../reader/config.ts';
import { configSummary, describeDefaults } from '../settings/index.ts';
import { dailyLimitOf } from '../speaking/index.ts';
import { blockWordGroup } from './block-word-config.ts';
import type { CommandContext } from './command.ts';
import { describeLimits } from './config-limits.ts';
import { dictionaryGroup } from './dictionary-config.ts';
import { guildIdOf } from './guild.ts';
import { readChannelGroup } from './read-channel-config.ts';
import {
  pageOfButton,
  type SettingsSection,
  settingsMessage,
  settingsPages,
} from './settings-pages.ts';
import { twitchGroup } from './twitch-config.ts';

/** The first command of each group: the label of the button that jumps to it. */
const GROUP_COMMANDS: Record<string, string> = {
  key: '/config api-key',
  read: '/config read',
  twitch: '/config twitch',
  dictionary: '/config dictionary',
  'block-word': '/config block-word',
};

/** Every setting of the server, by the command that changes it, in the member's language. */
export async function settingsSections(
  context: CommandContext,
  guildId: string,
): Promise<SettingsSection[]> {
  const { services, translator } = context;
  const { t } = translator;
  const [summary, saved] = await Promise.all([
    configSummary(services, guildId),
    services.settings.guild(guildId),
  ]);
  const budget = [
    ...summary.generations.map((usage) =>
      t('config.show_generations', { used: usage.used, limit: limitText(translator, usage.limit) }),
    ),
    ...summary.requests.map((usage) =>
      t('config.show_requests', { used: usage.used, limit: limitText(translator, usage.limit) }),
    ),
  ];
  const limits = describeLimits(translator, {
    setting: saved.limits.memberDaily,
    chatSetting: saved.limits.chatDaily,
    dailyLimit: dailyLimitOf(services.config.ttsLimits.generate),
    perMemberQueue: services.config.queueMaxPerMember,
    budgetMicros: saved.limits.dailyBudgetMicros,
    billsMoney: services.config.ttsApi.version === 'v3',
  })
    .split('\n')
    .filter((line) => line !== t('limits.change'));
  const reader = readerSections(translator, saved.reader, saved.blockedWords.length);
  const split = (text: string) => text.split('\n');
  return [
    {
      command: '/config api-key',
      group: 'key',
      lines: [
        summary.maskedKey === undefined
          ? t('config.show_no_key')
          : t('config.show_key', { key: `\`${summary.maskedKey}\`` }),
        ...budget,
      ],
    },
    {
      command: '/config defaults',
      group: 'key',
      lines: [
        t('config.show_defaults', { defaults: describeDefaults(translator, saved.defaults) }),
      ],
    },
    { command: '/config limits', group: 'key', lines: limits },
    {
      command: '/config read-channel',
      group: 'read',
      lines: split(await readChannelGroup.listed(saved, context, guildId)),
    },
    { command: '/config read who', group: 'read', lines: reader.who },
    { command: '/config read sound', group: 'read', lines: reader.sound },
    { command: '/config read pace', group: 'read', lines: reader.pace },
    {
      command: '/config read ignore-member · ignore-role · priority-role',
      group: 'read',
      lines: reader.lists,
    },
    // Slot: the member side's `/config member-name` (spoken names, opt-outs) adds its section here.
    {
      command: '/config twitch',
      group: 'twitch',
      lines: [
        ...split(await twitchGroup.listed(saved, context, guildId)),
        twitchBadgesLine(translator, saved.reader),
      ],
    },
    {
      command: '/config dictionary',
      group: 'dictionary',
      lines: split(await dictionaryGroup.listed(saved, context, guildId)),
    },
    {
      command: '/config block-word',
      group: 'block-word',
      lines: split(await blockWordGroup.listed(saved, context, guildId)),
    },
  ];
}

const groupCommand = (group: string): string => GROUP_COMMANDS[group] ?? group;

/** Answers `/config show` with the first page of every setting (to the manager only). */
export async function runShow(
  interaction: ChatInputCommandInteraction,
  context: CommandContext,
): Promise<void> {
  // Answer before the store and the API: both can outlast Discord's 3 s.
  await interaction.deferReply({ flags: MessageFlags.Ephemeral });
  const pages = settingsPages(await settingsSections(context, guildIdOf(interaction)));
  await interaction.editReply(settingsMessage(context.translator, pages, 0, groupCommand));
}

/** Turns `/config show` to the page its button names, from the settings as they are now. */
export async function turnShowPage(
  interaction: ButtonInteraction,
  context: CommandContext,
): Promise<void> {
  await interaction.deferUpdate();
  const pages = settingsPages(await settingsSections(context, guildIdOf(interaction)));
  await interaction.editReply(
    settingsMessage(context.translator, pages, pageOfButton(interaction.customId), groupCommand),
  );
}
