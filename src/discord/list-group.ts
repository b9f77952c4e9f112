/**
 * `/config`'s list groups (`read-channel`, `twitch`, `dictionary`, `block-word`): `add`, `remove`
 * and `list` over one list in a server's settings. What they share is here, once: the three
 * subcommands and their descriptions, answering Discord before the store, the one locked write,
 * and a private answer that pings no one. Each group states only what differs: its options, how
 * an item is read and checked, the change to the settings, and the words of its answer.
 */
import {
  type ChatInputCommandInteraction,
  MessageFlags,
  type SlashCommandSubcommandBuilder,
  type SlashCommandSubcommandGroupBuilder,
  type SlashCommandSubcommandsOnlyBuilder,
} from 'discord.js';
import type { MessageKey, Translator } from '../i18n/index.ts';
import type { GuildSettings, GuildSettingsInput } from '../store/index.ts';
import type { CommandContext } from './command.ts';
import { guildIdOf } from './guild.ts';
import { described } from './localize.ts';
import type { SubcommandPart } from './subcommands.ts';

/**
 * A group the translation files describe: `commands.config.<name>`, and `…-add`, `…-remove`,
 * `…-list` for its subcommands (a group missing one of them does not compile).
 */
export type ListGroupName<K = MessageKey> = K extends `commands.config.${infer Name}-list`
  ? Name
  : never;

/** What an `add` or a `remove` did, as its answer tells it. */
export type ListChange<Item> =
  | { readonly sub: 'add'; readonly item: Item }
  /** `removed` is false when the item was not in the list; undefined for groups that do not tell. */
  | { readonly sub: 'remove'; readonly item: Item; readonly removed: boolean | undefined };

/** One list group: what sets it apart from the others. */
export interface ListGroup<Item> {
  readonly name: ListGroupName;
  /** Adds to `add` the options naming an item (and anything else an item needs). */
  addOptions(sub: SlashCommandSubcommandBuilder): SlashCommandSubcommandBuilder;
  /** Adds to `remove` the option naming an item. */
  removeOptions(sub: SlashCommandSubcommandBuilder): SlashCommandSubcommandBuilder;
  /**
   * The item an `add` or `remove` names, read from its options; a `UserError` for one that
   * cannot be. Runs after Discord has been answered and before anything is stored.
   */
  item(interaction: ChatInputCommandInteraction, sub: 'add' | 'remove'): Item | Promise<Item>;
  /** The settings with `item` added; a `UserError` when it cannot be (a full list, a bad item). */
  add(settings: GuildSettings, item: Item): GuildSettingsInput;
  /** The settings without `item`, and (where the answer tells) whether it was there. */
  remove(
    settings: GuildSettings,
    item: Item,
  ): { readonly settings: GuildSettingsInput; readonly removed?: boolean };
  /**
   * Whether `list` writes the settings back as read, through the same locked update as a change
   * (so a server's first list stores its defaults, as the settings groups always have done). The
   * Twitch group's list comes from its source, and it only reads the settings.
   */
  readonly listWrites: boolean;
  /** The answer's first line after an `add` or a `remove`. */
  said(change: ListChange<Item>, translator: Translator): string;
  /** The list as the answer shows it, once the change is stored. */
  listed(saved: GuildSettings, context: CommandContext, guildId: string): string | Promise<string>;
  /** What stands between the first line and the list: a space where they read as one sentence. */
  readonly separator?: ' ';
}

/** The `/config` part for a list group: its subcommands, and how it answers them. */
export function listGroup<Item>(group: ListGroup<Item>): SubcommandPart {
  const { name } = group;
  return {
    names: [name],
    build: (builder: SlashCommandSubcommandsOnlyBuilder) =>
      builder.addSubcommandGroup((g) => listSubcommands(group, g)),
    execute: (interaction, context) => runListGroup(group, interaction, context),
  };
}

/**
 * The group named and described, with its `add`, `remove` and `list`: for a part that adds
 * subcommands of its own to the group (`/config twitch read`).
 */
export function listSubcommands<Item>(
  group: ListGroup<Item>,
  g: SlashCommandSubcommandGroupBuilder,
): SlashCommandSubcommandGroupBuilder {
  const { name } = group;
  return described(g.setName(name), `commands.config.${name}`)
    .addSubcommand((sub) =>
      group.addOptions(described(sub.setName('add'), `commands.config.${name}-add`)),
    )
    .addSubcommand((sub) =>
      group.removeOptions(described(sub.setName('remove'), `commands.config.${name}-remove`)),
    )
    .addSubcommand((sub) => described(sub.setName('list'), `commands.config.${name}-list`));
}

/** Runs `add`, `remove` or `list` and answers with the list (to the manager only). */
export async function runListGroup<Item>(
  group: ListGroup<Item>,
  interaction: ChatInputCommandInteraction,
  context: CommandContext,
): Promise<void> {
  const sub = interaction.options.getSubcommand();
  if (sub !== 'add' && sub !== 'remove' && sub !== 'list')
    throw new Error(`/config ${group.name} has no subcommand ${sub}`);
  const guildId = guildIdOf(interaction);
  const { settings } = context.services;
  // Answer before the store: it can outlast Discord's 3 s.
  await interaction.deferReply({ flags: MessageFlags.Ephemeral });
  let change: ListChange<Item> | undefined;
  let saved: GuildSettings;
  if (sub === 'list') {
    saved = group.listWrites
      ? await settings.updateGuild(guildId, (stored) => stored)
      : await settings.guild(guildId);
  } else {
    const item = await group.item(interaction, sub);
    let removed: boolean | undefined;
    saved = await settings.updateGuild(guildId, (stored) => {
      if (sub === 'add') return group.add(stored, item);
      const removal = group.remove(stored, item);
      removed = removal.removed;
      return removal.settings;
    });
    change = sub === 'add' ? { sub, item } : { sub, item, removed };
  }
  const head = change === undefined ? '' : group.said(change, context.translator);
  const list = await group.listed(saved, context, guildId);
  const content = head === '' ? list : `${head}${group.separator ?? '\n'}${list}`;
  await interaction.editReply({ content: content.slice(0, 2000), allowedMentions: { parse: [] } });
}
