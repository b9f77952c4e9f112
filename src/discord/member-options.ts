/** The options of `/myvoice` (a member's own settings), and reading them back as one change. */
import type { ChatInputCommandInteraction, SlashCommandBuilder } from 'discord.js';
import { UserError } from '../refusal/index.ts';
import { type MemberChange, RESET_SCOPES } from '../settings/index.ts';
import { normalizeSpokenName, SPOKEN_NAME_MAX } from '../store/index.ts';
import { described } from './localize.ts';

/** Adds `voice` and `language` (autocompleted), `read`, `name` and `reset` (a choice of what to clear). */
export function addMemberOptions<
  B extends Pick<SlashCommandBuilder, 'addStringOption' | 'addBooleanOption'>,
>(builder: B): B {
  builder
    .addStringOption((o) =>
      described(o.setName('voice'), 'commands.myvoice.voice').setAutocomplete(true),
    )
    .addStringOption((o) =>
      described(o.setName('language'), 'commands.myvoice.language').setAutocomplete(true),
    )
    .addBooleanOption((o) => described(o.setName('read'), 'commands.myvoice.read'))
    .addStringOption((o) =>
      described(o.setName('name'), 'commands.myvoice.name').setMaxLength(SPOKEN_NAME_MAX),
    )
    .addStringOption((o) =>
      described(o.setName('reset'), 'commands.myvoice.reset').addChoices(
        ...RESET_SCOPES.map((scope) => ({ name: scope, value: scope })),
      ),
    );
  return builder;
}

/**
 * What the member asked, each option left out undefined (none at all: show); a name with
 * nothing to speak is refused.
 */
export function memberChangeOf(interaction: ChatInputCommandInteraction): MemberChange {
  const { options } = interaction;
  const rawName = options.getString('name');
  const name = rawName === null ? undefined : normalizeSpokenName(rawName);
  if (rawName !== null && name === undefined) throw new UserError('spoken_name_empty', {});
  return {
    reset: RESET_SCOPES.find((scope) => scope === options.getString('reset')),
    voiceId: options.getString('voice') ?? undefined,
    language: options.getString('language')?.trim().toLowerCase() || undefined,
    read: options.getBoolean('read') ?? undefined,
    name,
  };
}
