import { createHash } from 'node:crypto';
import {
  type Client,
  type RESTPostAPIChatInputApplicationCommandsJSONBody as CommandJson,
  DiscordAPIError,
} from 'discord.js';
import type Keyv from 'keyv';
import type { Logger } from '../log/index.ts';
import { type ApiVersion, type Command, definitionOf } from './command.ts';
import { DiscordConnectError } from './login.ts';

/** Discord's codes for a server the bot cannot register commands in: unknown, or not joined. */
const GUILD_REFUSED = new Set<unknown>([10004, 50001]);

/** What Discord receives for the loaded commands on `api`: the JSON registered, hashed and documented. */
export function commandDefinitions(
  commands: ReadonlyMap<string, Command>,
  api: ApiVersion,
): CommandJson[] {
  return [...commands.values()].map((command) => definitionOf(command, api));
}

/**
 * Registers the slash commands (globally, or to one guild in development)
 * when their definitions changed since the last registration, or always with `force`.
 */
export async function registerCommands(options: {
  client: Client<true>;
  commands: ReadonlyMap<string, Command>;
  keyv: Keyv;
  logger: Logger;
  guildId?: string | undefined;
  force?: boolean;
  /** The TTS API version: options it cannot use are not offered. */
  api: ApiVersion;
}): Promise<boolean> {
  const { client, commands, keyv, logger, guildId, api } = options;
  const definitions = commandDefinitions(commands, api);
  const target = guildId === undefined ? 'global' : `guild:${guildId}`;
  const hash = createHash('sha256').update(JSON.stringify({ target, definitions })).digest('hex');
  const storeKey = `commands:${client.application.id}:${target}`;
  if (!options.force && (await keyv.get(storeKey)) === hash) {
    logger.debug({ target }, 'slash commands unchanged');
    return false;
  }
  if (guildId === undefined) await client.application.commands.set(definitions);
  else {
    await client.application.commands.set(definitions, guildId).catch((error: unknown) => {
      if (!(error instanceof DiscordAPIError && GUILD_REFUSED.has(error.code))) throw error;
      throw new DiscordConnectError(
        `Discord refused the slash commands for DISCORD_DEV_GUILD_ID=${guildId} (${error.message}): invite the bot to that server first, or remove DISCORD_DEV_GUILD_ID to register them globally`,
        { cause: error },
      );
    });
  }
  await keyv.set(storeKey, hash);
  logger.info({ target, count: definitions.length }, 'registered slash commands');
  return true;
}
