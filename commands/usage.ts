import { EmbedBuilder, MessageFlags } from 'discord.js';
import {
  type Command,
  canManage,
  described,
  guildClient,
  guildCommand,
  guildIdOf,
} from '../src/discord/index.ts';
import { nextUtcDay } from '../src/store/index.ts';
import {
  chartAltText,
  chartInput,
  chartSvg,
  moneyFigures,
  rasterize,
  serverUsage,
  topMembers,
  type UsageFigures,
  usageLines,
} from '../src/usage/index.ts';

const HISTORY_DAYS = 14;
/** Money is shown over the last 30 days (the ledger keeps 31). */
const MONEY_DAYS = 30;
const DAY_MS = 86_400_000;

export default {
  data: guildCommand('usage'),
  // v3 has no daily quota: it bills money, which a daily budget bounds.
  dataFor: (api) =>
    api === 'v3'
      ? described(guildCommand('usage'), 'commands.usage.description_v3')
      : guildCommand('usage'),

  async execute(interaction, { services, translator }) {
    const { t } = translator;
    const guildId = guildIdOf(interaction);
    // Answer before the store and the API: both can outlast Discord's 3 s.
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    const client = await guildClient(interaction, services);
    const manager = canManage(interaction);
    const now = services.clock.now();
    const billsMoney = client.billsMoney;
    const back = billsMoney ? MONEY_DAYS : manager ? HISTORY_DAYS : 1;
    const [usages, read, share, guild] = await Promise.all([
      client.usage('generate'),
      services.usage.days(guildId, now - (back - 1) * DAY_MS, now),
      services.speaking.memberShareOf(guildId),
      services.settings.guild(guildId),
    ]);
    const days = read.slice(manager ? -HISTORY_DAYS : -1);
    const figures: UsageFigures = {
      server: serverUsage(usages, days.at(-1)?.total ?? 0),
      member: {
        used: days.at(-1)?.members[interaction.user.id] ?? 0,
        // Members with Manage Server are exempt from the share: theirs is shown as information.
        share: manager ? undefined : share,
        freesAt: nextUtcDay(now),
      },
      // v3 bills each generation: today, 30 days, yours, and what merging saved; v2 says it bills none.
      money: billsMoney
        ? moneyFigures(read, interaction.user.id, guild.limits.dailyBudgetMicros)
        : 'none',
      ...(manager ? { history: { days, top: topMembers(days) }, shareForMembers: share } : {}),
    };
    const lines = usageLines(translator, figures);
    const embed = new EmbedBuilder()
      .setTitle(t('usage.title'))
      .setDescription(lines.summary.join('\n'));
    if (lines.days === undefined || lines.top === undefined) {
      await interaction.editReply({ embeds: [embed], allowedMentions: { parse: [] } });
      return;
    }
    embed
      .addFields(
        { name: t('usage.days'), value: lines.days.join('\n'), inline: true },
        { name: t('usage.top'), value: lines.top.join('\n'), inline: true },
      )
      .setImage('attachment://usage.png');
    const chart = rasterize(chartSvg(chartInput(figures)));
    await interaction.editReply({
      embeds: [embed],
      files: [
        {
          attachment: chart.png,
          name: 'usage.png',
          contentType: 'image/png',
          description: chartAltText(translator, figures),
        },
      ],
      allowedMentions: { parse: [] },
    });
  },
} satisfies Command;
