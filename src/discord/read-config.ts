/**
 * `/config read`: how streamer mode reads, split by purpose (who is read, how a message sounds,
 * pace and limits) with explicit add and remove for its member and role lists. Each subcommand
 * with no option shows its own settings. The stored record is the same as the old
 * `/config reader`'s: only the command surface changed.
 */
import {
  type ChatInputCommandInteraction,
  MessageFlags,
  type SlashCommandSubcommandBuilder,
} from 'discord.js';
import type { Translator } from '../i18n/index.ts';
import {
  applyReaderOptions,
  changeReaderList,
  type ReaderList,
  readerSections,
} from '../reader/config.ts';
import type { CommandContext } from './command.ts';
import { guildIdOf } from './guild.ts';
import { described } from './localize.ts';
import { readerInputOf, readerOptionsAt } from './reader-options.ts';
import type { SubcommandPart } from './subcommands.ts';

/** The subcommands that set plain options, by the purpose they share. */
const SECTIONS = ['who', 'sound', 'pace'] as const;

/** A list subcommand: `action` add|remove and the member or role it is about. */
interface ListSubcommand {
  readonly name: 'ignore-member' | 'ignore-role' | 'priority-role';
  readonly list: ReaderList;
  readonly target: 'member' | 'role';
  /** What the answer says after an add or a remove of `mention`. */
  said(t: Translator['t'], action: 'add' | 'remove', mention: string): string;
}

const LISTS: readonly ListSubcommand[] = [
  {
    name: 'ignore-member',
    list: 'ignoredMembers',
    target: 'member',
    said: (t, action, member) =>
      t(action === 'add' ? 'reader.member_ignored' : 'reader.member_read_again', { member }),
  },
  {
    name: 'ignore-role',
    list: 'ignoredRoles',
    target: 'role',
    said: (t, action, role) =>
      t(action === 'add' ? 'reader.role_ignored' : 'reader.role_read_again', { role }),
  },
  {
    name: 'priority-role',
    list: 'priorityRoles',
    target: 'role',
    said: (t, action, role) =>
      t(action === 'add' ? 'reader.priority_role_added' : 'reader.priority_role_removed', { role }),
  },
];

function listSubcommand(
  sub: SlashCommandSubcommandBuilder,
  { name, target }: ListSubcommand,
): SlashCommandSubcommandBuilder {
  described(sub.setName(name), `commands.config.read-${name}`).addStringOption((o) =>
    described(o.setName('action'), 'commands.config.read-action')
      .setRequired(true)
      .addChoices({ name: 'add', value: 'add' }, { name: 'remove', value: 'remove' }),
  );
  return target === 'member'
    ? sub.addUserOption((o) =>
        described(o.setName('member'), 'commands.config.read-member').setRequired(true),
      )
    : sub.addRoleOption((o) =>
        described(o.setName('role'), 'commands.config.read-role').setRequired(true),
      );
}

/** Saves a section's options when any is given; answers with that section's settings. */
async function runSection(
  section: (typeof SECTIONS)[number],
  interaction: ChatInputCommandInteraction,
  { services, translator }: CommandContext,
): Promise<void> {
  const guildId = guildIdOf(interaction);
  const input = readerInputOf(interaction.options, readerOptionsAt(section));
  const changed = Object.keys(input).length > 0;
  // Answer before the store: it can outlast Discord's 3 s (a refusal then comes privately).
  await interaction.deferReply({ flags: MessageFlags.Ephemeral });
  const saved = changed
    ? await services.settings.updateGuild(guildId, (stored) => ({
        ...stored,
        reader: applyReaderOptions(stored.reader, input),
      }))
    : await services.settings.guild(guildId);
  const { t } = translator;
  const lines = readerSections(translator, saved.reader, saved.blockedWords.length)[section];
  await reply(interaction, [t(changed ? 'reader.saved' : 'reader.settings'), ...lines]);
}

/** Adds or removes one member or role; adding twice keeps it once, removing twice is harmless. */
async function runList(
  of: ListSubcommand,
  interaction: ChatInputCommandInteraction,
  { services, translator }: CommandContext,
): Promise<void> {
  const guildId = guildIdOf(interaction);
  const action = interaction.options.getString('action', true) === 'remove' ? 'remove' : 'add';
  const id =
    of.target === 'member'
      ? interaction.options.getUser('member', true).id
      : interaction.options.getRole('role', true).id;
  await interaction.deferReply({ flags: MessageFlags.Ephemeral });
  const saved = await services.settings.updateGuild(guildId, (stored) => ({
    ...stored,
    reader: changeReaderList(stored.reader, of.list, action, id),
  }));
  const mention = of.target === 'member' ? `<@${id}>` : `<@&${id}>`;
  await reply(interaction, [
    of.said(translator.t, action, mention),
    ...readerSections(translator, saved.reader).lists,
  ]);
}

function reply(interaction: ChatInputCommandInteraction, lines: string[]): Promise<unknown> {
  return interaction.editReply({
    content: lines.join('\n').slice(0, 2000),
    allowedMentions: { parse: [] },
  });
}

/** The `/config read` part: `who`, `sound`, `pace` and the three lists. */
export const readPart: SubcommandPart = {
  names: ['read'],
  build: (builder) =>
    builder.addSubcommandGroup((group) => {
      described(group.setName('read'), 'commands.config.read');
      for (const section of SECTIONS)
        group.addSubcommand((sub) =>
          readerOptionsAt(section).reduce(
            (s, o) => o.add(s),
            described(sub.setName(section), `commands.config.read-${section}`),
          ),
        );
      for (const list of LISTS) group.addSubcommand((sub) => listSubcommand(sub, list));
      return group;
    }),
  execute: (interaction, context) => {
    const name = interaction.options.getSubcommand();
    const section = SECTIONS.find((s) => s === name);
    if (section !== undefined) return runSection(section, interaction, context);
    const list = LISTS.find((l) => l.name === name);
    if (list === undefined) throw new Error(`/config read has no subcommand ${name}`);
    return runList(list, interaction, context);
  },
};
