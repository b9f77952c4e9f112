import { MessageFlags } from 'discord.js';
import { type Command, guildCommand, guildIdOf } from '../src/discord/index.ts';
import type { Translator } from '../src/i18n/index.ts';
import { quoteSafely } from '../src/speech/index.ts';
import { nextUtcDay } from '../src/store/index.ts';
import { formatMoney } from '../src/usage/index.ts';
import type { QueueEntry } from '../src/voice/index.ts';

const SHOWN = 15;
const STATE_KEY = {
  queued: 'queue.state_queued',
  generating: 'queue.state_generating',
  ready: 'queue.state_ready',
  playing: 'queue.state_playing',
} as const;

function line({ t }: Translator, entry: QueueEntry): string {
  const who = quoteSafely(entry.requesterName, 40);
  const what = quoteSafely(entry.text, 60);
  const state = Object.hasOwn(STATE_KEY, entry.state)
    ? t(STATE_KEY[entry.state as keyof typeof STATE_KEY])
    : entry.state;
  return entry.position === 0
    ? t('queue.playing_line', { who, what })
    : t('queue.line', { position: entry.position, who, what, state });
}

export default {
  data: guildCommand('queue'),

  async execute(interaction, { services, translator }) {
    const { t } = translator;
    const guildId = guildIdOf(interaction);
    const channelId = services.voice.channelOf(guildId);
    const entries = services.voice.queue(guildId);
    const header =
      channelId === undefined
        ? t('queue.not_in_voice')
        : t('queue.header', { channel: `<#${channelId}>` });
    const pending = entries.filter((entry) => entry.position > 0).length;
    const more =
      entries.length > SHOWN ? `\n${t('queue.more', { count: entries.length - SHOWN })}` : '';
    const body =
      entries.length === 0
        ? t('queue.empty')
        : `${entries
            .slice(0, SHOWN)
            .map((entry) => line(translator, entry))
            .join('\n')}${more}\n${t('queue.waiting', { count: pending })}`;
    const chat = services.reader.stats(guildId);
    // Answer before the store: it can outlast Discord's 3 s.
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    const [reading, spent] = await Promise.all([
      services.settings.guild(guildId).then((guild) => guild.reader.channels.length > 0),
      services.speaking.budgetSpent(guildId),
    ]);
    const chatLine =
      reading || chat.waiting + chat.droppedStale > 0
        ? `\n${t('queue.chat', { waiting: chat.waiting, stale: chat.droppedStale })}`
        : '';
    // Twitch redemptions and cheers, apart: paid for, read first, never dropped as stale.
    const paidLine =
      (chat.waitingPaid > 0 ? `\n${t('queue.chat_paid', { paid: chat.waitingPaid })}` : '') +
      (chat.paidOverCap > 0 ? `\n${t('queue.chat_paid_over', { over: chat.paidOverCap })}` : '');
    // Twitch messages that came faster than the server could take them: dropped unread.
    const overflow = services.twitch.overflow(guildId);
    const overflowLine = overflow > 0 ? `\n${t('queue.twitch_overflow', { count: overflow })}` : '';
    const { collapsed, blocked, newMember, refused } = chat;
    const rulesLine =
      collapsed + blocked + newMember + refused > 0
        ? `\n${t('queue.chat_rules', { collapsed, blocked, newMember, refused })}`
        : '';
    // The chat reader stops when the server's daily budget is spent: say so, and until when.
    const budgetLine =
      spent === undefined
        ? ''
        : `\n${t('queue.budget_spent', {
            spent: formatMoney(translator.language, spent.spent),
            budget: formatMoney(translator.language, spent.budget),
            when: `<t:${Math.ceil(nextUtcDay(services.clock.now()) / 1000)}:R>`,
          })}`;
    await interaction.editReply({
      content: `${header}\n${body}${chatLine}${paidLine}${overflowLine}${rulesLine}${budgetLine}`,
      allowedMentions: { parse: [] },
    });
  },
} satisfies Command;
