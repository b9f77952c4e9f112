import { type Interaction, MessageFlags, type RepliableInteraction } from 'discord.js';
import type { Logger } from '../log/index.ts';
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
      return;
    }
    const context: CommandContext = { services, logger };
    try {
      if (interaction.isChatInputCommand()) await command.execute(interaction, context);
      else if (interaction.isAutocomplete()) await command.autocomplete?.(interaction, context);
      else if (interaction.isButton()) await command.button?.(interaction, context);
      else if (interaction.isModalSubmit()) await command.modal?.(interaction, context);
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

function commandName(interaction: Interaction): string | undefined {
  if (interaction.isChatInputCommand() || interaction.isAutocomplete())
    return interaction.commandName;
  if (interaction.isButton() || interaction.isModalSubmit())
    return interaction.customId.split(':')[0];
  return undefined;
}

/** Tells the user what failed: ephemerally before a reply exists, in the reply they are watching after. */
export async function reportFailure(
  interaction: RepliableInteraction,
  error: unknown,
  logger: Logger,
): Promise<void> {
  const failure = describeFailure(error);
  if (failure.incidentId === undefined) logger.info({ err: error }, 'user-facing failure');
  else logger.error({ err: error, incidentId: failure.incidentId }, 'unexpected failure');
  const content =
    failure.incidentId === undefined
      ? failure.text
      : `${failure.text} (incident \`${failure.incidentId}\`)`;
  try {
    if (interaction.deferred || interaction.replied) {
      await interaction.editReply({
        content,
        embeds: [],
        components: [],
        files: [],
        allowedMentions: { parse: [] },
      });
    } else {
      await interaction.reply({
        content,
        flags: MessageFlags.Ephemeral,
        allowedMentions: { parse: [] },
      });
    }
  } catch (replyError) {
    logger.warn({ err: replyError }, 'could not tell the user about a failure');
  }
}
