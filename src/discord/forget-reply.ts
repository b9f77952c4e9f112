/**
 * `/config forget` as Discord shows it: the question with its two buttons, and what was
 * deleted in words. The deleting itself is `ForgetService` (`src/privacy`).
 */
import { ActionRowBuilder, ButtonBuilder, ButtonStyle } from 'discord.js';
import type { Translator } from '../i18n/index.ts';
import type { ForgetReport } from '../privacy/index.ts';

/** The confirm button's custom id, routed to `/config`'s `forget` part. */
export const FORGET_CONFIRM_ID = 'config:forget:confirm';
/** The cancel button's custom id, routed there too. */
export const FORGET_CANCEL_ID = 'config:forget:cancel';

/** The question: everything that goes, and a red button to delete it all or one to cancel. */
export function forgetQuestion({ t }: Translator): {
  content: string;
  components: ActionRowBuilder<ButtonBuilder>[];
} {
  const row = new ActionRowBuilder<ButtonBuilder>().addComponents(
    new ButtonBuilder()
      .setCustomId(FORGET_CONFIRM_ID)
      .setLabel(t('config.forget_confirm'))
      .setStyle(ButtonStyle.Danger),
    new ButtonBuilder()
      .setCustomId(FORGET_CANCEL_ID)
      .setLabel(t('config.forget_cancel'))
      .setStyle(ButtonStyle.Secondary),
  );
  return { content: t('config.forget_question'), components: [row] };
}

/** What was deleted, one line per kind that had anything, and what was kept and why. */
export function describeForgetReport({ t }: Translator, report: ForgetReport): string {
  const items = [
    report.apiKey && t('config.forget_item_key'),
    report.settings && t('config.forget_item_settings'),
    report.readChannels > 0 &&
      t('config.forget_item_read_channels', { count: report.readChannels }),
    report.twitchChannels > 0 && t('config.forget_item_twitch', { count: report.twitchChannels }),
    report.twitchVoices > 0 &&
      t('config.forget_item_twitch_voices', { count: report.twitchVoices }),
    report.twitchMuted > 0 && t('config.forget_item_twitch_muted', { count: report.twitchMuted }),
    report.memberSettings > 0 &&
      t('config.forget_item_member_settings', { count: report.memberSettings }),
    report.dictionaryEntries > 0 &&
      t('config.forget_item_dictionary', { count: report.dictionaryEntries }),
    report.blockedWords > 0 &&
      t('config.forget_item_blocked_words', { count: report.blockedWords }),
    report.pendingSpeech > 0 && t('config.forget_item_pending', { count: report.pendingSpeech }),
    report.usageDays > 0 && t('config.forget_item_usage', { count: report.usageDays }),
    report.previews > 0 && t('config.forget_item_previews', { count: report.previews }),
    report.cachedSpeech > 0 && t('config.forget_item_speech', { count: report.cachedSpeech }),
  ].filter((item): item is string => typeof item === 'string');
  const kept =
    report.keptKeyRecords === 'shared'
      ? [t('config.forget_kept_shared')]
      : report.keptKeyRecords === 'unreadable'
        ? [t('config.forget_kept_unreadable')]
        : [];
  const head =
    items.length > 0
      ? [t('config.forget_done'), ...items.map((item) => `• ${item}`)]
      : [t('config.forget_nothing')];
  return [...head, ...kept].join('\n');
}
