/** `/config limits`: the per-member limits of a server, shown and set (Manage Server). */
import {
  type ChatInputCommandInteraction,
  MessageFlags,
  type SlashCommandSubcommandBuilder,
} from 'discord.js';
import type { Translator } from '../i18n/index.ts';
import type { Services } from '../services.ts';
import { dailyLimitOf, memberDailyShare } from '../speaking/index.ts';
import { guildIdOf, requireManager } from './guild.ts';
import { described } from './localize.ts';

/** The `limits` subcommand: `member-daily` sets the share; without options it shows the limits. */
export function limitsSubcommand(
  sub: SlashCommandSubcommandBuilder,
): SlashCommandSubcommandBuilder {
  return described(sub.setName('limits'), 'commands.config.limits').addIntegerOption((o) =>
    described(o.setName('member-daily'), 'commands.config.limits-member-daily')
      .setMinValue(0)
      .setMaxValue(1_000_000),
  );
}

/** What a server's limits are, in words, in the member's language. */
export function describeLimits(
  { t }: Translator,
  input: {
    readonly setting: number | undefined;
    readonly dailyLimit: number | undefined;
    readonly perMemberQueue: number;
  },
): string {
  const share = memberDailyShare(input.setting, input.dailyLimit);
  const daily =
    share === undefined
      ? t('limits.no_share')
      : input.setting === undefined && input.dailyLimit !== undefined
        ? t('limits.share_default', { count: share, limit: input.dailyLimit })
        : t('limits.share', { count: share });
  return [
    t('limits.share_line', { share: daily }),
    t('limits.queue_line', { count: input.perMemberQueue }),
    t('limits.change'),
  ].join('\n');
}

/** Shows the server's limits, after saving `member-daily` when given. */
export async function runLimits(
  interaction: ChatInputCommandInteraction,
  services: Services,
  translator: Translator,
): Promise<void> {
  requireManager(interaction);
  const dailyLimit = dailyLimitOf(services.config.ttsLimits.generate);
  const guildId = guildIdOf(interaction);
  const memberDaily = interaction.options.getInteger('member-daily');
  await interaction.deferReply({ flags: MessageFlags.Ephemeral });
  const { limits } =
    memberDaily === null
      ? await services.settings.guild(guildId)
      : await services.settings.updateGuild(guildId, (settings) => ({
          ...settings,
          limits: { ...settings.limits, memberDaily },
        }));
  const description = describeLimits(translator, {
    setting: limits.memberDaily,
    dailyLimit,
    perMemberQueue: services.config.queueMaxPerMember,
  });
  await interaction.editReply({
    content: memberDaily === null ? description : `${translator.t('limits.saved')}\n${description}`,
    allowedMentions: { parse: [] },
  });
}
