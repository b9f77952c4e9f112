/** `/config limits`: the per-member limits of a server, shown and set (Manage Server). */
import {
  type ChatInputCommandInteraction,
  MessageFlags,
  type SlashCommandSubcommandBuilder,
} from 'discord.js';
import type { Services } from '../services.ts';
import { dailyLimitOf, memberDailyShare } from '../speaking/index.ts';
import { guildIdOf, requireManager } from './guild.ts';

/** The `limits` subcommand: `member-daily` sets the share; without options it shows the limits. */
export function limitsSubcommand(
  sub: SlashCommandSubcommandBuilder,
): SlashCommandSubcommandBuilder {
  return sub
    .setName('limits')
    .setDescription('Per-member limits: each member’s daily share of generations')
    .addIntegerOption((o) =>
      o
        .setName('member-daily')
        .setDescription('Generations per member per day (0: no share); Manage Server is exempt')
        .setMinValue(0)
        .setMaxValue(1_000_000),
    );
}

/** What a server's limits are, in words. */
export function describeLimits(input: {
  readonly setting: number | undefined;
  readonly dailyLimit: number | undefined;
  readonly perMemberQueue: number;
}): string {
  const share = memberDailyShare(input.setting, input.dailyLimit);
  const daily =
    share === undefined
      ? 'no daily share: members may use the whole daily limit'
      : `${share} ${share === 1 ? 'generation' : 'generations'} per member per day${input.setting === undefined ? ` (the default: a fifth of the key’s ${input.dailyLimit} a day)` : ''}`;
  return [
    `**Per-member share:** ${daily}. Members with Manage Server are exempt; counts restart at 00:00 UTC.`,
    `**Voice queue:** at most ${input.perMemberQueue} items waiting per member (the one playing not counted).`,
    'Change the share with `/config limits member-daily:<n>` (`0` for none).',
  ].join('\n');
}

/** Shows the server's limits, after saving `member-daily` when given. */
export async function runLimits(
  interaction: ChatInputCommandInteraction,
  services: Services,
): Promise<void> {
  requireManager(interaction);
  const dailyLimit = dailyLimitOf(services.config.ttsLimits.generate);
  const guildId = guildIdOf(interaction);
  const memberDaily = interaction.options.getInteger('member-daily');
  await interaction.deferReply({ flags: MessageFlags.Ephemeral });
  const settings = await services.settings.guild(guildId);
  const limits = memberDaily === null ? settings.limits : { ...settings.limits, memberDaily };
  if (memberDaily !== null) await services.settings.setGuild(guildId, { ...settings, limits });
  const description = describeLimits({
    setting: limits.memberDaily,
    dailyLimit,
    perMemberQueue: services.config.queueMaxPerMember,
  });
  await interaction.editReply({
    content: memberDaily === null ? description : `Saved.\n${description}`,
    allowedMentions: { parse: [] },
  });
}
