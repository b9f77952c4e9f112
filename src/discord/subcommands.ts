/**
 * A large command split into parts, one file per subcommand or group (as the discord.js guide
 * splits `/config`): each part adds its own subcommands to the command's data and answers them.
 */
import type {
  AutocompleteInteraction,
  ButtonInteraction,
  ChatInputCommandInteraction,
  ModalSubmitInteraction,
  SlashCommandSubcommandsOnlyBuilder,
} from 'discord.js';
import type { ApiVersion, CommandContext } from './command.ts';

/** One file's share of a command: the subcommands or groups it adds, and how it answers them. */
export interface SubcommandPart {
  /** The subcommand groups and ungrouped subcommands it adds, by name. */
  readonly names: readonly string[];
  /**
   * Adds them to the command's data, offering only what the TTS API version can use (absent:
   * everything, as for a reference that covers both).
   */
  build(
    builder: SlashCommandSubcommandsOnlyBuilder,
    api?: ApiVersion,
  ): SlashCommandSubcommandsOnlyBuilder;
  execute(interaction: ChatInputCommandInteraction, context: CommandContext): Promise<void>;
  autocomplete?(interaction: AutocompleteInteraction, context: CommandContext): Promise<void>;
  /** Answers the modals it shows, whose custom ids are `<command>:<one of its names>`. */
  modal?(interaction: ModalSubmitInteraction, context: CommandContext): Promise<void>;
  /** Answers its buttons, whose custom ids are `<command>:<one of its names>:<what>`. */
  button?(interaction: ButtonInteraction, context: CommandContext): Promise<void>;
}

/**
 * The command's data for `api` (absent: every option of either version): `base` with every
 * part's subcommands, in the parts' order.
 */
export function withParts(
  base: SlashCommandSubcommandsOnlyBuilder,
  parts: readonly SubcommandPart[],
  api?: ApiVersion,
): SlashCommandSubcommandsOnlyBuilder {
  return parts.reduce((builder, part) => part.build(builder, api), base);
}

/**
 * The part that answers an interaction: by its subcommand group, else its subcommand; a modal
 * or a button by the name after `<command>:` in its custom id.
 */
export function partOf(
  parts: readonly SubcommandPart[],
  interaction:
    | ChatInputCommandInteraction
    | AutocompleteInteraction
    | ModalSubmitInteraction
    | ButtonInteraction,
): SubcommandPart {
  const name =
    interaction.isModalSubmit() || interaction.isButton()
      ? (interaction.customId.split(':')[1] ?? '')
      : (interaction.options.getSubcommandGroup(false) ?? interaction.options.getSubcommand());
  const part = parts.find((candidate) => candidate.names.includes(name));
  if (part === undefined) throw new Error(`no part answers ${name}`);
  return part;
}
