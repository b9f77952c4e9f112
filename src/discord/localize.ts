import { InteractionContextType, SlashCommandBuilder } from 'discord.js';
import { english, localizations, type MessageKey } from '../i18n/index.ts';

/** Anything with a description Discord shows: a command, subcommand or option builder. */
interface Describable {
  setDescription(description: string): unknown;
  setDescriptionLocalizations(localizations: Record<string, string>): unknown;
}

/** The names of commands the translation files describe (`commands.<name>.description`). */
type CommandName<K = MessageKey> = K extends `commands.${infer Name}.description` ? Name : never;

/**
 * Gives a command, subcommand or option its description from the translation files, in
 * English and every other language, so each member's client shows their own. Names stay English.
 */
export function described<T extends Describable>(builder: T, key: MessageKey): T {
  builder.setDescription(english.t(key as never));
  builder.setDescriptionLocalizations(localizations(key));
  return builder;
}

/** A slash command used in servers only, described in every language; options are added to it. */
export function guildCommand(name: CommandName): SlashCommandBuilder {
  return described(
    new SlashCommandBuilder().setName(name),
    `commands.${name}.description`,
  ).setContexts(InteractionContextType.Guild);
}
