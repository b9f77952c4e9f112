import type {
  AutocompleteInteraction,
  ButtonInteraction,
  ChatInputCommandInteraction,
  ModalSubmitInteraction,
  RESTPostAPIChatInputApplicationCommandsJSONBody,
  StringSelectMenuInteraction,
} from 'discord.js';
import type { Translator } from '../i18n/index.ts';
import type { Logger } from '../log/index.ts';
import type { Services } from '../services.ts';

/** What every handler receives: the services, and a logger and translator bound to the interaction. */
export interface CommandContext {
  readonly services: Services;
  readonly logger: Logger;
  /** Writes replies in the language of the member who used the command (`interaction.locale`). */
  readonly translator: Translator;
  /** Every command the bot runs, by name: what `/help` lists. */
  readonly commands: ReadonlyMap<string, Command>;
}

/** The TTS API version the bot speaks (`TTS_API_VERSION`). */
export type ApiVersion = 'v2' | 'v3';

/** The definition of `command` Discord is given for `api` (`dataFor`, else `data`). */
export function definitionOf(
  command: Command,
  api: ApiVersion,
): RESTPostAPIChatInputApplicationCommandsJSONBody {
  return (command.dataFor?.(api) ?? command.data).toJSON();
}

/**
 * One slash command. Buttons, select menus and modals it creates use custom ids that
 * start with `<name>:` so the router can send them back to it.
 */
export interface Command {
  readonly data: {
    readonly name: string;
    toJSON(): RESTPostAPIChatInputApplicationCommandsJSONBody;
  };
  /**
   * The definition registered for the server's TTS API version, where it differs (options the
   * API cannot use left out); `data` when absent. `TTS_API_VERSION` is process-wide.
   */
  readonly dataFor?: (api: ApiVersion) => Command['data'];
  execute(interaction: ChatInputCommandInteraction, context: CommandContext): Promise<void>;
  autocomplete?(interaction: AutocompleteInteraction, context: CommandContext): Promise<void>;
  button?(interaction: ButtonInteraction, context: CommandContext): Promise<void>;
  modal?(interaction: ModalSubmitInteraction, context: CommandContext): Promise<void>;
  select?(interaction: StringSelectMenuInteraction, context: CommandContext): Promise<void>;
}
