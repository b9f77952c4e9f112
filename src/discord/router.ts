import { type Interaction, MessageFlags, type RepliableInteraction } from 'discord.js';
import { translatorFor } from '../i18n/index.ts';
import type { Logger } from '../log/index.ts';
import { UserError } from '../refusal/index.ts';
import type { Services } from '../services.ts';
import type { Command, CommandContext } from './command.ts';
import { describeFailure } from './messages.ts';

/** Routes each interaction to its command; the only place interactions enter the bot. */
export function createRouter(commands: ReadonlyMap<string, Command>, services: Services) {
  return async function route(interaction: Interaction): Promise<void> {
    const name = commandName(interaction);
    const command = name === undefined ? undefined : commands.get(name);
    const logger = services.logger.child({
      interactionId: interaction.id,
      guildId: interaction.guildId,
      command: name,
    });
    if (command === undefined) {
      logger.warn({ type: interaction.type }, 'interaction for an unknown command');
      if (interaction.isRepliable()) {
        await reportFailure(interaction, gone(), logger);
      } else if (interaction.isAutocomplete()) {
        await interaction
          .respond([])
          .catch((error: unknown) => logger.warn({ err: error }, 'could not answer autocomplete'));
      }
      return;
    }
    const context: CommandContext = {
      services,
      logger,
      translator: translatorFor(interaction.locale),
      commands,
    };
    try {
      if (interaction.isChatInputCommand()) await command.execute(interaction, context);
      else if (interaction.isAutocomplete()) {
        if (command.autocomplete === undefined) await interaction.respond([]);
        else await command.autocomplete(interaction, context);
      } else if (interaction.isButton()) {
        if (command.button === undefined) throw gone();
        await command.button(interaction, context);
      } else if (interaction.isModalSubmit()) {
        if (command.modal === undefined) throw gone();
        await command.modal(interaction, context);
      } else if (interaction.isStringSelectMenu()) {
        if (command.select === undefined) throw gone();
        await command.select(interaction, context);
      }
    } catch (error) {
      if (interaction.isAutocomplete()) {
        logger.error({ err: error }, 'autocomplete failed');
        if (!interaction.responded)
          await interaction
            .respond([])
            .catch((e: unknown) => logger.warn({ err: e }, 'could not answer autocomplete'));
        return;
      }
      await reportFailure(interaction as RepliableInteraction, error, logger);
    }
  };
}

function gone(): UserError {
  return new UserError('unknown_command', {});
}

function commandName(interaction: Interaction): string | undefined {
  if (interaction.isChatInputCommand() || interaction.isAutocomplete())
    return interaction.commandName;
  if (interaction.isButton() || interaction.isModalSubmit() || interaction.isStringSelectMenu())
    return interaction.customId.split(':')[0];
  return undefined;
}

/** The refusal's identifier for the log (never its text, which can quote the member). */
function refusalId(error: unknown): string {
  return error instanceof UserError ? error.id : error instanceof Error ? error.name : 'unknown';
}

/** The command an interaction came from, for the log. */
function commandOf(interaction: RepliableInteraction): string | undefined {
  return interaction.isCommand() ? interaction.commandName : undefined;
}

/**
 * Tells the user what failed, in their language. Expected failures go to them alone
 * (ephemerally), even when a public reply was already deferred; other
 * failures replace the reply everyone was watching.
 */
export async function reportFailure(
  interaction: RepliableInteraction,
  error: unknown,
  logger: Logger,
): Promise<void> {
  const failure = describeFailure(error, translatorFor(interaction.locale));
  if (failure.incidentId === undefined) {
    // A refusal the member can act on is routine: one line by its id; its stack only at debug.
    logger.info(
      { refusal: refusalId(error), command: commandOf(interaction) },
      'user-facing failure',
    );
    logger.debug({ err: error }, 'user-facing failure in full');
  } else logger.error({ err: error, incidentId: failure.incidentId }, 'unexpected failure');
  const content = failure.text;
  const quiet = { allowedMentions: { parse: [] } };
  try {
    if (!interaction.deferred && !interaction.replied) {
      await interaction.reply({ content, flags: MessageFlags.Ephemeral, ...quiet });
    } else if (error instanceof UserError && interaction.ephemeral === false) {
      await interaction.followUp({ content, flags: MessageFlags.Ephemeral, ...quiet });
      await interaction.deleteReply();
    } else if (error instanceof UserError && updatesItsMessage(interaction)) {
      // The message the component sits on stays as everyone saw it.
      await interaction.followUp({ content, flags: MessageFlags.Ephemeral, ...quiet });
    } else {
      await interaction.editReply({ content, embeds: [], components: [], files: [], ...quiet });
    }
  } catch (replyError) {
    logger.warn({ err: replyError }, 'could not tell the user about a failure');
  }
}

/** True for a component interaction acknowledged with `deferUpdate`: its reply is the message it sits on. */
function updatesItsMessage(interaction: RepliableInteraction): boolean {
  return interaction.isMessageComponent() && interaction.deferred && interaction.ephemeral === null;
}
