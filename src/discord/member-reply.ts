/**
 * `/myvoice` and `/config member-name` as Discord shows them: a member's own settings in words,
 * every name and label made inert (`quoteSafely`, `codeSpan`). What is stored is `src/settings`'.
 */
import { userMention } from 'discord.js';
import type { Translator } from '../i18n/index.ts';
import type { MemberChange, MemberView } from '../settings/index.ts';
import { codeSpan, languageName, quoteSafely, voiceLabel } from '../speech/index.ts';
import type { MemberSettings } from '../store/index.ts';
import type { Voice } from '../tts/index.ts';

/** A voice as a reply names it: its label when the key's list has it, else its id. */
function voiceText(translator: Translator, voiceId: string, voice: Voice | undefined): string {
  return voice === undefined ? codeSpan(voiceId) : quoteSafely(voiceLabel(voice, translator), 100);
}

/** A spoken name as a reply shows it. */
function nameText(name: string): string {
  return quoteSafely(name, 40);
}

/**
 * What a bare `/myvoice` shows: the member's voice and language (every server), whether chat
 * reads them here and their spoken name here, then how to change or reset each.
 */
export function describeMemberView(
  translator: Translator,
  view: MemberView,
  voice: Voice | undefined,
  locale: string,
): string {
  const { t } = translator;
  const { user, member } = view;
  const lines = [
    t('myvoice.show_title'),
    user.voiceId === undefined
      ? t('myvoice.show_voice_none')
      : t('myvoice.show_voice', { voice: voiceText(translator, user.voiceId, voice) }),
    user.language === undefined
      ? t('myvoice.show_language_none')
      : t('myvoice.show_language', { language: languageName(user.language, locale) }),
    member.read === false ? t('myvoice.show_read_off') : t('myvoice.show_read_on'),
    ...(view.ignored ? [t('myvoice.show_ignored')] : []),
    member.name === undefined
      ? t('myvoice.show_name_none')
      : member.nameBy === 'admin'
        ? t('myvoice.show_name_admin', { name: nameText(member.name) })
        : t('myvoice.show_name_member', { name: nameText(member.name) }),
    t('myvoice.show_hint'),
  ];
  return lines.join('\n');
}

/** What a `/myvoice` change did: one line for the reset, then one per setting given. */
export function describeMemberChange(
  translator: Translator,
  change: MemberChange,
  voice: Voice | undefined,
  locale: string,
): string {
  const { t } = translator;
  const lines = [
    change.reset === undefined ? undefined : t(`myvoice.reset_${change.reset}`),
    change.voiceId === undefined
      ? undefined
      : t('myvoice.set', { voice: voiceText(translator, change.voiceId, voice) }),
    change.language === undefined
      ? undefined
      : t('myvoice.language_set', { language: languageName(change.language, locale) }),
    change.read === undefined ? undefined : t(change.read ? 'myvoice.read_on' : 'myvoice.read_off'),
    change.name === undefined ? undefined : t('myvoice.name_set', { name: nameText(change.name) }),
  ];
  return lines.filter((line) => line !== undefined).join('\n');
}

/** `/config member-name`'s answer: the member's spoken name as it now is, and who set it. */
export function describeSpokenName(
  { t }: Translator,
  userId: string,
  member: MemberSettings,
): string {
  const who = userMention(userId);
  if (member.name === undefined) return t('config.member_name_none', { member: who });
  const name = nameText(member.name);
  return member.nameBy === 'admin'
    ? t('config.member_name_admin', { member: who, name })
    : t('config.member_name_member', { member: who, name });
}
