import { type Client, Events, type Interaction, MessageFlags } from 'discord.js';
import { translatorFor } from '../i18n/index.ts';
import type { RemovalScheduler } from '../privacy/index.ts';
import type { Services } from '../services.ts';
import { wireChatEvents } from './chat-events.ts';
import type { Command } from './command.ts';
import { wireGuildEvents } from './guild-events.ts';
import { wireRemovalEvents, wireTwitchLifecycle } from './removal-events.ts';
import { createRouter } from './router.ts';
import { wireVoiceEvents } from './voice-events.ts';

/**
 * What the bot listens to on a client: interactions (routed to their command while the bot
 * takes work, answered "restarting" once it stops), voice states, chat, joined servers, and
 * servers removed or added back (their deletion scheduled or cancelled, their Twitch reading
 * stopped or started).
 * Returns the function that wires one client, so a replacing client is wired the same.
 */
export function discordWiring(deps: {
  readonly commands: ReadonlyMap<string, Command>;
  readonly services: Services;
  /** False once the bot is stopping: new interactions are refused. */
  readonly accepting: () => boolean;
  /** Told when the bot is removed from a server or added back (`DATA_RETENTION`). */
  readonly removals: Pick<RemovalScheduler, 'removed' | 'readded'>;
}): (client: Client) => void {
  const { services } = deps;
  const { logger } = services;
  const route = createRouter(deps.commands, services);
  return (client) => {
    client.on(Events.InteractionCreate, (interaction) => {
      const handled = deps.accepting() ? route(interaction) : refuseWhileStopping(interaction);
      handled.catch((error: unknown) => logger.error({ err: error }, 'interaction handler failed'));
    });
    client.on(Events.Error, (error) => logger.error({ err: error }, 'discord client error'));
    wireVoiceEvents(client, services.voice, logger);
    wireChatEvents(client, services.reader, logger);
    wireGuildEvents(client, logger);
    wireRemovalEvents(client, deps.removals, logger);
    wireTwitchLifecycle(client, services.twitch, logger);
  };
}

/** Answers an interaction that arrives while the bot shuts down: no new work is taken. */
async function refuseWhileStopping(interaction: Interaction): Promise<void> {
  if (interaction.isAutocomplete()) await interaction.respond([]);
  else if (interaction.isRepliable()) {
    await interaction.reply({
      content: translatorFor(interaction.locale).t('errors.restarting'),
      flags: MessageFlags.Ephemeral,
    });
  }
}
