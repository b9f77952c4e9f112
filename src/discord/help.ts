import {
  type RESTPostAPIChatInputApplicationCommandsJSONBody as CommandJson,
  PermissionFlagsBits,
} from 'discord.js';
import type { Language, MessageKey, Translator } from '../i18n/index.ts';

/** What `/help` reads of a command: what the bot registers with Discord for it. */
export type CommandShape = Pick<
  CommandJson,
  'name' | 'description' | 'description_localizations' | 'default_member_permissions'
>;

/** The `/help` answer: a title and its lines. */
export interface Help {
  readonly title: string;
  readonly description: string;
}

/** The steps a member with Manage Server is shown, in the order a new server needs them. */
export const SETUP_STEPS = [
  'help.setup_key',
  'help.setup_read',
  'help.setup_defaults',
  'help.setup_limits',
  'help.setup_show',
] as const satisfies readonly MessageKey[];

/**
 * What a member may do here, built from the loaded commands themselves (so it never drifts
 * from what Discord shows): every command whose default permissions the member has, with its
 * own description in the member's language, then the setup path for members with Manage Server
 * (and the bot's `invite` link, when given). `can` says whether the member holds permission
 * bits; per-server overrides are not seen.
 */
export function helpFor(
  commands: readonly CommandShape[],
  can: (permissions: bigint) => boolean,
  { t, language }: Translator,
  invite?: string,
): Help {
  const usable = commands
    .filter((command) => command.name !== 'help')
    .filter((command) => {
      const required = command.default_member_permissions;
      if (required === null || required === undefined) return true;
      // "0": disabled by default for everyone but administrators.
      return can(required === '0' ? PermissionFlagsBits.Administrator : BigInt(required));
    })
    .sort((a, b) => a.name.localeCompare(b.name));
  const lines = [
    t('help.commands'),
    ...usable.map(
      (command) => `\`/${command.name}\` — ${localized(command, language) ?? command.description}`,
    ),
  ];
  if (can(PermissionFlagsBits.ManageGuild)) {
    lines.push('', t('help.setup_title'), ...SETUP_STEPS.map((key) => t(key)));
    if (invite !== undefined) lines.push('', t('help.invite', { url: invite }));
  } else {
    lines.push('', t('help.ask_admin'));
  }
  return { title: t('help.title'), description: lines.join('\n') };
}

/** The command's description in a language, when it has one (English is its plain description). */
function localized(command: CommandShape, language: Language): string | undefined {
  const byLocale: Partial<Record<string, string | null>> = command.description_localizations ?? {};
  return byLocale[language] ?? undefined;
}
