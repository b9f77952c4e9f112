/** `/config limits`: the daily shares of a server, shown and set (Manage Server). */
import {
  type ChatInputCommandInteraction,
  MessageFlags,
  type SlashCommandSubcommandBuilder,
} from 'discord.js';
import type { Translator } from '../i18n/index.ts';
import type { Services } from '../services.ts';
import { saveLimits } from '../settings/index.ts';
import { dailyLimitOf, memberDailyShare } from '../speaking/index.ts';
import type { GuildLimits } from '../store/index.ts';
import { dollarsToMicros, formatMoney } from '../usage/index.ts';
import type { ApiVersion } from './command.ts';
import { guildIdOf, requireManager } from './guild.ts';
import { described } from './localize.ts';

/**
 * The `limits` subcommand: `member-daily` sets `/say`'s share, `chat-daily` the chat's,
 * `daily-budget` the server's money per day (v3 only: v2 bills no money, in US dollars);
 * without options it shows them.
 */
export function limitsSubcommand(
  sub: SlashCommandSubcommandBuilder,
  api?: ApiVersion,
): SlashCommandSubcommandBuilder {
  described(sub.setName('limits'), 'commands.config.limits')
    .addIntegerOption((o) =>
      described(o.setName('member-daily'), 'commands.config.limits-member-daily')
        .setMinValue(0)
        .setMaxValue(1_000_000),
    )
    .addIntegerOption((o) =>
      described(o.setName('chat-daily'), 'commands.config.limits-chat-daily')
        .setMinValue(0)
        .setMaxValue(1_000_000),
    );
  if (api !== 'v2')
    sub.addNumberOption((o) =>
      described(o.setName('daily-budget'), 'commands.config.limits-daily-budget')
        .setMinValue(0)
        .setMaxValue(1_000_000),
    );
  return sub;
}

/** What a server's limits are, in words, in the member's language. */
export function describeLimits(
  translator: Translator,
  input: {
    readonly setting: number | undefined;
    /** The chat's share as set; absent: the same as the per-member share. */
    readonly chatSetting?: number | undefined;
    readonly dailyLimit: number | undefined;
    readonly perMemberQueue: number;
    /** The daily budget in micro-dollars; absent or 0: none. */
    readonly budgetMicros?: number | undefined;
    /** Whether the key's API bills money (v3); v2 has no budget line. Default: true. */
    readonly billsMoney?: boolean | undefined;
  },
): string {
  const { t } = translator;
  const share = memberDailyShare(input.setting, input.dailyLimit);
  // Without a daily limit (v3 has none) there is no "whole daily limit" to use.
  const none =
    input.dailyLimit === undefined ? t('limits.no_share_no_daily') : t('limits.no_share');
  const daily =
    share === undefined
      ? none
      : input.setting === undefined && input.dailyLimit !== undefined
        ? t('limits.share_default', { count: share, limit: input.dailyLimit })
        : t('limits.share', { count: share });
  const chat =
    input.chatSetting === undefined
      ? t('limits.chat_same')
      : input.chatSetting === 0
        ? none
        : t('limits.share', { count: input.chatSetting });
  const budget = input.budgetMicros ?? 0;
  const budgetLine =
    budget === 0
      ? t('limits.budget_none')
      : t('limits.budget_line', { budget: formatMoney(translator.language, budget) });
  return [
    t('limits.share_line', { share: daily }),
    t('limits.chat_line', { share: chat }),
    ...(input.billsMoney === false ? [] : [budgetLine]),
    t('limits.queue_line', { count: input.perMemberQueue }),
    t('limits.change'),
  ].join('\n');
}

/** Shows the server's limits, after saving `member-daily` and `chat-daily` when given. */
export async function runLimits(
  interaction: ChatInputCommandInteraction,
  services: Services,
  translator: Translator,
): Promise<void> {
  requireManager(interaction);
  const dailyLimit = dailyLimitOf(services.config.ttsLimits.generate);
  const guildId = guildIdOf(interaction);
  const memberDaily = interaction.options.getInteger('member-daily') ?? undefined;
  const chatDaily = interaction.options.getInteger('chat-daily') ?? undefined;
  const dollars = interaction.options.getNumber('daily-budget') ?? undefined;
  const dailyBudgetMicros = dollars === undefined ? undefined : dollarsToMicros(dollars);
  const changed =
    memberDaily !== undefined || chatDaily !== undefined || dailyBudgetMicros !== undefined;
  await interaction.deferReply({ flags: MessageFlags.Ephemeral });
  const limits: GuildLimits = changed
    ? await saveLimits(services.settings, guildId, { memberDaily, chatDaily, dailyBudgetMicros })
    : (await services.settings.guild(guildId)).limits;
  const description = describeLimits(translator, {
    setting: limits.memberDaily,
    chatSetting: limits.chatDaily,
    dailyLimit,
    perMemberQueue: services.config.queueMaxPerMember,
    budgetMicros: limits.dailyBudgetMicros,
    billsMoney: services.config.ttsApi.version === 'v3',
  });
  await interaction.editReply({
    content: changed ? `${translator.t('limits.saved')}\n${description}` : description,
    allowedMentions: { parse: [] },
  });
}
